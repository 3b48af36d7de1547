// The checkout as a competent team would write it with the standard toolkit, for the bench to hold ours against:
// Powertools idempotency (keyed on foreign_id, DynamoDB persistence), Logger, Metrics, the secret through
// Parameters, and one signed fetch to the service. It sends the same create request as ours.
import { createHash, timingSafeEqual } from 'node:crypto';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { sign } from '../../processing/signing';

/** What the team keeps in its secret. */
export interface PeerSecret {
  api_key: string;
  secret_key: string;
  storefront_token: string;
}

const logger = new Logger({ serviceName: 'checkout' });
const metrics = new Metrics({ namespace: 'Shop', serviceName: 'checkout' });
/** Exported so that the bench can count its commands. */
export const dynamodb = new DynamoDBClient({});
const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: process.env.IDEMPOTENCY_TABLE!,
  awsSdkV3Client: dynamodb,
});
const idempotency = new IdempotencyConfig({
  eventKeyJmesPath: 'powertools_json(body).foreign_id',
  payloadValidationJmesPath: 'powertools_json(body)',
  expiresAfterSeconds: 24 * 3600,
});
const baseUrl = process.env.PROCESSING_BASE_URL!;
const secretName = process.env.SECRET_NAME!;

const secret = () => getSecret<PeerSecret>(secretName, { transform: 'json', maxAge: 300 });
const answer = (statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const digest = (value: string) => createHash('sha256').update(value).digest();

interface Order {
  foreign_id: string;
  amount: string;
  currency: string;
  sender_currency?: string;
  timer?: boolean;
  title: string;
  email?: string;
  url_success?: string;
  url_failed?: string;
}

/** The fields the service needs, checked the usual way: a small hand-written schema. */
function readOrder(body: string | undefined): Order | string {
  let order: Partial<Order>;
  try {
    order = JSON.parse(body ?? '');
  } catch {
    return 'body is not JSON';
  }
  if (typeof order !== 'object' || order === null) return 'body must be an object';
  if (typeof order.foreign_id !== 'string' || !/^[\w.:-]{1,64}$/.test(order.foreign_id)) return 'foreign_id';
  if (typeof order.amount !== 'string' || !/^\d+(\.\d{1,8})?$/.test(order.amount)) return 'amount';
  if (typeof order.currency !== 'string' || !/^[A-Z0-9]{2,10}$/.test(order.currency)) return 'currency';
  if (typeof order.title !== 'string' || order.title.length > 50) return 'title';
  return order as Order;
}

/** The storefront's bearer token, and a valid order, before anything is claimed. */
const checkRequest: MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
  before: async ({ event }) => {
    const token = /^Bearer (\S+)$/.exec(event.headers.authorization ?? '')?.[1];
    const expected = (await secret())!.storefront_token;
    if (!token || !timingSafeEqual(digest(token), digest(expected)))
      return answer(401, { message: 'Unauthorized' });
    const order = readOrder(event.body);
    return typeof order === 'string' ? answer(400, { message: `Invalid ${order}` }) : undefined;
  },
};

async function createInvoice(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const order = readOrder(event.body) as Order;
  const keys = (await secret())!;
  const body = JSON.stringify({
    foreign_id: order.foreign_id,
    timer: order.timer ?? true,
    title: order.title,
    currency: order.currency,
    amount: order.amount,
    url_success: order.url_success,
    url_failed: order.url_failed,
    email_user: order.email,
    sender_currency: order.sender_currency,
  });
  const response = await fetch(`${baseUrl}/v2/invoices/create`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-processing-key': keys.api_key,
      'x-processing-signature': sign(keys.secret_key, body),
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const created = (await response.json()) as { data?: { id: number } };
  // Thrown, so that idempotency forgets the attempt and a retry may create the invoice.
  if (response.status !== 201 || !created.data) throw new Error(`The service answered ${response.status}`);
  metrics.addMetric('InvoiceCreated', MetricUnit.Count, 1);
  logger.info('Invoice created', { foreignId: order.foreign_id, invoiceId: created.data.id });
  return answer(201, created.data);
}

export const handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown> = middy(
  createInvoice,
)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(checkRequest)
  .use(makeHandlerIdempotent({ persistenceStore, config: idempotency }));
