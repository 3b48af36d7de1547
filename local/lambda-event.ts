import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** What API Gateway's HTTP API knows of a request when it invokes the route's function. */
export interface HttpApiRequest {
  method: string;
  /** The route as declared, e.g. `GET /invoices/{foreign_id}`. */
  routeKey: string;
  path: string;
  /** The raw query string, without `?`. */
  query?: string;
  /** Names in lower case. */
  headers: Record<string, string>;
  pathParameters?: Record<string, string>;
  body?: Buffer;
  sourceIp: string;
  /** e.g. `HTTP/1.1`. */
  protocol: string;
}

/** Content types API Gateway passes as text; any other body arrives base64-encoded. */
const TEXT_TYPES = /^(application\/(json|xml|x-www-form-urlencoded)|text\/)/i;

/** The payload-v2 event API Gateway hands the route's function: one builder for the local gateway and the bench. */
export function httpApiEvent(request: HttpApiRequest): APIGatewayProxyEventV2 {
  const { headers, body } = request;
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(request.query ?? ''))
    query[name] = name in query ? `${query[name]},${value}` : value;
  const asText = TEXT_TYPES.test(headers['content-type'] ?? '');
  const hasBody = body !== undefined && body.length > 0;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: request.routeKey,
    rawPath: request.path,
    rawQueryString: request.query ?? '',
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters:
      request.pathParameters && Object.keys(request.pathParameters).length
        ? request.pathParameters
        : undefined,
    body: hasBody ? body.toString(asText ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: hasBody && !asText,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method,
        path: request.path,
        protocol: request.protocol,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: request.routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
  };
}
