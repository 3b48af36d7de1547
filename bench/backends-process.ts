// The bench's backends in a process of their own, as DynamoDB, Secrets Manager and the service are remote in AWS:
// the local stack (sandbox, dynalite, Secrets Manager endpoint, gateway), driven over IPC by bench/backends.ts.
import { MAX_STORE_REQUESTS_PER_SECOND } from '../domain/request-limits';
import { environmentSetBy } from '../local/lambda-process';
import { startLocalStack } from '../local/stack';
import type { BackendsReady, BackendsRequest } from './backends';

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { value: stack, env } = await environmentSetBy(() =>
    startLocalStack({
      schedule: false,
      // The store under measurement stays within its limit, as a store in a sale is given room to; the handlers in
      // the bench's own process take the same environment.
      env: { STORE_REQUESTS_PER_SECOND: String(MAX_STORE_REQUESTS_PER_SECOND) },
    }),
  );
  const ready: BackendsReady = {
    env,
    url: stack.url,
    storefrontToken: stack.storefrontToken,
    adminToken: stack.adminToken,
    sandbox: { url: stack.sandbox!.url, apiKey: stack.sandbox!.apiKey, secretKey: stack.sandbox!.secretKey },
    tableName: stack.tableName,
    dynamoUrl: stack.dynamo.url,
  };
  process.send!(ready);
  process.on('message', async (request: BackendsRequest) => {
    if (request.type === 'close') {
      await stack.close();
      process.exit(0);
    }
    if (request.type === 'putSecret') stack.secrets.put(request.name, request.value);
    const { user, system } = process.cpuUsage();
    process.send!({
      id: request.id,
      dynamoCalls: stack.dynamo.calls(),
      secretsCalls: stack.secrets.calls(),
      cpuMs: (user + system) / 1000,
    });
  });
  // The bench is gone: nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
