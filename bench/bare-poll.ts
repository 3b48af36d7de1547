import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { InvoiceRecord } from '../domain/model';
import { invoiceEtag, invoiceView } from '../http/views';
import { awsClientConfig, withoutSdkLogging } from '../runtime/aws-clients';
import { explorers } from '../runtime/explorers';
import { str as S } from '../store/table';
import { pollCall } from './calls';
import { apiEvent } from './lambda-events';
import type { PluginUnderTest } from './plugin';
import type { Call } from './timing';

type Result = APIGatewayProxyStructuredResultV2;

/**
 * The least code a poll handler needs, around the least I/O: one function that checks the bearer token, reads the
 * invoice's item with one consistent GetItem, parses its record and answers its view and ETag (the plugin's own,
 * as every poll renders them). None of the plugin's layers: no store lookup, request limit, deadline, input checks, log
 * or error mapping. A floor under the poll's ratio, timed beside the same least I/O as the handler.
 */
export function barePoll(plugin: PluginUnderTest, foreignId: string) {
  const { backends } = plugin;
  const client = withoutSdkLogging(new DynamoDBClient(awsClientConfig()));
  const tokenDigest = createHash('sha256').update(backends.storefrontToken).digest();

  const handler = async (event: APIGatewayProxyEventV2): Promise<Result> => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(event.headers.authorization ?? '');
    const given = bearer && createHash('sha256').update(bearer[1]).digest();
    if (!given || !timingSafeEqual(given, tokenDigest)) return { statusCode: 401, body: '{}' };
    const id = event.pathParameters?.foreign_id ?? '';
    const { Item: item } = await client.send(
      new GetItemCommand({
        TableName: backends.tableName,
        Key: { pk: S(`INVOICE#${id}`), sk: S('INVOICE') },
        ConsistentRead: true,
      }),
    );
    if (!item?.data?.S) return { statusCode: 404, body: '{}' };
    const record = JSON.parse(item.data.S) as InvoiceRecord;
    record.version = Number(item.version?.N);
    return {
      statusCode: 200,
      headers: {
        'content-type': 'application/json',
        'cache-control': 'private, no-cache',
        etag: invoiceEtag(record),
      },
      body: JSON.stringify(invoiceView(record, Date.now(), explorers)),
    };
  };

  /** The storefront's poll of `foreignId`, as the handler gets it. */
  const call: Call = () => {
    const event = apiEvent(pollCall(plugin, foreignId));
    return async () => {
      const result = await handler(event);
      if (result.statusCode !== 200)
        throw new Error(`The bare poll answered ${result.statusCode}: ${result.body}`);
    };
  };
  return {
    call,
    /** For the bench's own middleware, which every client it times carries alike. */
    client,
    close: () => client.destroy(),
  };
}
