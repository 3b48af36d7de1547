import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../lib/routes';
import type { HttpHandler } from '../local/gateway';
import { lambdaContext } from '../local/lambda-context';
import { httpApiEvent } from '../local/lambda-event';

export interface ApiCall {
  method: 'GET' | 'POST';
  /** The route as API Gateway names it, e.g. `/invoices/{foreign_id}`. */
  route: string;
  path: string;
  /** The raw query string, without `?`. */
  query?: string;
  token: string;
  body?: string;
  pathParameters?: Record<string, string>;
}

/** A payload-v2 event with the headers API Gateway passes on from a browser's fetch. */
export function apiEvent(call: ApiCall): APIGatewayProxyEventV2 {
  return httpApiEvent({
    method: call.method,
    routeKey: `${call.method} ${call.route}`,
    path: call.path,
    query: call.query,
    headers: {
      accept: 'application/json',
      authorization: `Bearer ${call.token}`,
      'content-length': String(call.body?.length ?? 0),
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      host: 'api.shop.example',
      'user-agent': 'Mozilla/5.0 (bench)',
      'x-amzn-trace-id': `Root=1-${randomUUID()}`,
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    pathParameters: call.pathParameters,
    body: call.body === undefined ? undefined : Buffer.from(call.body),
    sourceIp: '203.0.113.7',
    protocol: 'HTTP/1.1',
  });
}

/**
 * Builds the event and context (Lambda's work, outside the clock) and answers the invocation to time, which
 * insists on the expected status so that a failing call is never taken for a fast one.
 */
export function invocation(
  handler: HttpHandler,
  functionName: string,
  call: ApiCall,
  expectedStatus: number,
): () => Promise<APIGatewayProxyStructuredResultV2> {
  const event = apiEvent(call);
  const context = lambdaContext(functionName, API_FUNCTION_TIMEOUT_SECONDS * 1000);
  return async () => {
    const result = (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
    if (result.statusCode !== expectedStatus) {
      throw new Error(`${call.method} ${call.path} answered ${result.statusCode}: ${result.body}`);
    }
    return result;
  };
}
