import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { HttpHandler } from '../local/gateway';
import { LOCAL_CREDENTIALS } from '../local/dynamodb';
import { checkoutCall } from './calls';
import { invocation } from './lambda-events';
import type { PeerSecret } from './peer/checkout';
import { countCommands, type CommandCounts, type PluginUnderTest } from './plugin';

/** The peer checkout (bench/peer/checkout.ts) loaded in this process, beside ours. */
export interface Peer {
  handler: HttpHandler;
  dynamo: DynamoDBClient;
  commands: CommandCounts;
  /** Its configuration, for the fresh processes of the cold runs. */
  env: Record<string, string>;
}

const TABLE = 'peer-idempotency';
const SECRET = 'peer/checkout';

/** Gives the peer what its team would deploy: an idempotency table and a secret of its own. */
export async function startPeer(plugin: PluginUnderTest): Promise<Peer> {
  const { backends } = plugin;
  const admin = new DynamoDBClient({ endpoint: backends.dynamoUrl, credentials: LOCAL_CREDENTIALS });
  await admin.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
  admin.destroy();
  const secret: PeerSecret = {
    api_key: backends.sandbox.apiKey,
    secret_key: backends.sandbox.secretKey,
    storefront_token: backends.storefrontToken,
  };
  await backends.putSecret(SECRET, JSON.stringify(secret));
  const env = { IDEMPOTENCY_TABLE: TABLE, SECRET_NAME: SECRET };
  Object.assign(process.env, env);
  const { handler, dynamodb } = await import('./peer/checkout');
  return { handler: handler as HttpHandler, dynamo: dynamodb, commands: countCommands(dynamodb), env };
}

/** The storefront's checkout sent to the peer, readied. */
export function checkoutByPeer(
  plugin: PluginUnderTest,
  peer: Peer,
  foreignId: string,
): () => Promise<unknown> {
  return invocation(peer.handler, 'peer-checkout', checkoutCall(plugin, foreignId), 201);
}
