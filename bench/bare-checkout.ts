import { DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createHash, createHmac, hash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { invoiceRequest } from '../processing/translate';
import { createSigned } from './baseline-io';
import { checkoutCall, idSequence } from './calls';
import { apiEvent } from './lambda-events';
import type { PluginUnderTest } from './plugin';
import type { Call } from './timing';
import { awsClientConfig, withoutSdkLogging } from '../runtime/aws-clients';
import { CREATED_INDEX, OPEN_ITEMS_INDEX } from '../store/schema';
import { num as N, sortableTime, str as S } from '../store/table';

const FOREIGN_ID = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,64}$/;
const CURRENCY = /^[A-Z0-9]{2,10}$/;
const AMOUNT = /^(\d{1,30})(?:\.(\d{1,8}))?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONTROL = /[\p{Cc}\p{Cs}]/u;
const FIELDS = new Set(
  'foreign_id amount currency sender_currency timer title email url_success url_failed description type metadata'.split(
    ' ',
  ),
);

type Result = APIGatewayProxyStructuredResultV2;
const refused = (status: number, fields: string[]): Result => ({
  statusCode: status,
  body: JSON.stringify({ error: { fields } }),
});
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The least code a checkout handler needs, around the least I/O: one function that checks the bearer token, reads
 * and checks the body, claims the order with a record of the plugin's shape (so items as large
 * as the plugin's, with both indexes' keys), signs and sends the create, records the answer, issues a client secret
 * and writes the view. None of the plugin's layers, and none of its guarantees past a first try that succeeds: no
 * deadline budget, timeouts, retries, recovery of a lost answer or error mapping. A floor under the checkout's
 * ratio, timed beside the same least I/O as the handler: how near any implementation comes on this machine.
 */
export function bareCheckout(plugin: PluginUnderTest) {
  const { backends } = plugin;
  const client = withoutSdkLogging(new DynamoDBClient(awsClientConfig()));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16, scheduling: 'lifo' });
  const { tableName: TableName, sandbox: service } = backends;
  const tokenDigest = createHash('sha256').update(backends.storefrontToken).digest();

  const handler = async (event: APIGatewayProxyEventV2): Promise<Result> => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(event.headers.authorization ?? '');
    const given = bearer && createHash('sha256').update(bearer[1]).digest();
    if (!given || !timingSafeEqual(given, tokenDigest)) return refused(401, []);
    const body = JSON.parse(event.body ?? '') as Record<string, unknown>;
    const bad = Object.keys(body).filter((name) => !FIELDS.has(name));
    const text = (name: string, max: number, pattern?: RegExp): string => {
      const value = body[name];
      const ok =
        typeof value === 'string' &&
        value.trim() !== '' &&
        value.length <= max &&
        !CONTROL.test(value) &&
        (!pattern || pattern.test(value));
      if (!ok) bad.push(name);
      return value as string;
    };
    const url = (name: string): string => {
      const value = text(name, 2048);
      try {
        if (!['https:', 'http:'].includes(new URL(value).protocol)) bad.push(name);
      } catch {
        bad.push(name);
      }
      return value;
    };
    const foreignId = text('foreign_id', 64, FOREIGN_ID);
    const amount = AMOUNT.exec(text('amount', 64));
    if (!amount || !/[1-9]/.test(amount[0])) bad.push('amount');
    const request = {
      foreignId,
      amount: amount ? `${amount[1]}.${(amount[2] ?? '').padEnd(8, '0')}` : '',
      currency: text('currency', 10, CURRENCY),
      title: text('title', 50),
      email: text('email', 254, EMAIL),
      urlSuccess: url('url_success'),
      urlFailed: url('url_failed'),
      timer: body.timer !== false,
      senderCurrency: text('sender_currency', 10, CURRENCY),
    };
    if (bad.length > 0) return refused(400, bad);

    const now = Date.now();
    // The plugin's record as its item keeps it (store/record-item.ts): the request apart, fields at a new
    // record's values left out.
    const claimed = { foreignId, phase: 'sending', claimedAt: now, createdAt: now, updatedAt: now };
    const Key = { pk: S(`BARE#${foreignId}`), sk: S('BARE') };
    await client.send(
      new PutItemCommand({
        TableName,
        Item: {
          ...Key,
          data: S(JSON.stringify(claimed)),
          request: S(JSON.stringify(request)),
          version: N(1),
          [CREATED_INDEX.partitionKey]: S('BARE#0'),
          [CREATED_INDEX.sortKey]: S(`${sortableTime(now)}#${foreignId}`),
          [OPEN_ITEMS_INDEX.partitionKey]: S('OPEN#BARE'),
          [OPEN_ITEMS_INDEX.sortKey]: S(sortableTime(now + 60_000)),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    const create = JSON.stringify(invoiceRequest(foreignId, request));
    const { data } = JSON.parse(await createSigned(agent, service, create)) as {
      data: Record<string, string | number | null>;
    };
    const secret = `cs_${createHmac('sha256', service.secretKey).update(foreignId).digest('base64url')}`;
    const answeredAt = Date.now();
    const invoice = {
      id: data.id,
      url: data.url,
      address: data.address,
      tag: data.tag ?? null,
      amount: request.amount,
      senderCurrency: request.senderCurrency,
      senderAmount: data.sender_amount,
      fixedAt: data.fixed_at,
      releaseAt: data.release_at,
    };
    const answered = {
      ...claimed,
      phase: 'sent',
      status: 'pending',
      history: [{ status: 'pending', at: answeredAt, source: 'create' }],
      updatedAt: answeredAt,
      invoice,
      clientSecretHash: hash('sha256', secret, 'base64url'),
    };
    await client.send(
      new UpdateItemCommand({
        TableName,
        Key,
        UpdateExpression: 'SET #data = :data, version = :version',
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: {
          ':data': S(JSON.stringify(answered)),
          ':version': N(2),
          ':expected': N(1),
        },
      }),
    );
    const view = {
      foreign_id: foreignId,
      status: 'awaiting_payment',
      final: false,
      exception: null,
      failure_message: null,
      title: request.title,
      amount: request.amount,
      currency: request.currency,
      metadata: {},
      processor_invoice_id: invoice.id,
      payment_url: invoice.url,
      pay_currency: invoice.senderCurrency,
      pay_amount: invoice.senderAmount,
      pay_address: invoice.address,
      pay_tag: invoice.tag,
      paid_amount: '0.00000000',
      owed_amount: invoice.senderAmount,
      net_amount: null,
      net_currency: null,
      fees: [],
      fixed_at: iso(Number(invoice.fixedAt) * 1000),
      expires_at: iso(Number(invoice.releaseAt) * 1000),
      seconds_left: Math.max(0, Number(invoice.releaseAt) - Math.floor(answeredAt / 1000)),
      history: answered.history.map(({ status, at, source }) => ({
        service_status: status,
        at: iso(at),
        source,
      })),
      refunds: [],
      refundable: null,
      created_at: iso(now),
      updated_at: iso(answeredAt),
      client_secret: secret,
    };
    return {
      statusCode: 201,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: JSON.stringify(view),
    };
  };

  const nextId = idSequence('bench-bare');
  /** A storefront's checkout, as the handlers get it, each with a new foreign_id. */
  const call: Call = () => {
    const event = apiEvent(checkoutCall(plugin, nextId()));
    return async () => {
      const result = await handler(event);
      if (result.statusCode !== 201)
        throw new Error(`The bare checkout answered ${result.statusCode}: ${result.body}`);
    };
  };
  return {
    call,
    /** For the bench's own middleware, which every client it times carries alike. */
    client,
    close: () => {
      agent.destroy();
      client.destroy();
    },
  };
}
