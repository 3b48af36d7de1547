// The OpenAPI 3.1 document, generated from the route table (lib/routes.ts) and the schemas that validate input
// and shape output. `npm run openapi` writes it to openapi.json; `npm start` serves what this generates; a test
// keeps the two equal. Only the generator reads @valibot/to-json-schema: no Lambda bundle holds it.
import { EVENT_ID } from '../../domain/webhooks';
import {
  toJsonSchema,
  toJsonSchemaDefs,
  type ConversionConfig,
  type JsonSchema,
} from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { routes, type Access, type Route } from '../../lib/routes';
import type { FieldsSchema } from '../validate';
import { foreignId } from './fields';
import { callbackBody } from './callback-body';
import * as input from './inputs';
import { operations, type Operation } from './operations';
import * as output from './outputs';

const SCHEMAS = {
  CheckoutBody: input.checkoutBody,
  OrderRefundBody: input.orderRefundBody,
  RefundBody: input.refundBody,
  ClaimBody: input.claimBody,
  CallbackBody: callbackBody,
  InvoiceView: output.invoiceView,
  CheckoutView: output.checkoutView,
  PublicInvoiceView: output.publicInvoiceView,
  InvoiceList: output.invoiceList,
  RefundView: output.refundView,
  RefundList: output.refundList,
  ClaimView: output.claimView,
  BalanceSnapshot: output.snapshot,
  BalanceSnapshotList: output.snapshotList,
  Health: output.health,
  PairList: output.pairList,
  Transaction: output.transaction,
  CallbackOutcome: output.callbackOutcome,
  StoreBody: input.storeBody,
  StoreChangesBody: input.storeChangesBody,
  RotateTokensBody: input.rotateTokensBody,
  Store: output.storeView,
  StoreList: output.storeList,
  CreatedStore: output.createdStore,
  RotatedTokens: output.rotatedTokens,
  RotateWebhookSecretBody: input.rotateWebhookSecretBody,
  RotatedWebhookSecret: output.rotatedWebhookSecret,
  CurrentToken: output.currentToken,
  Error: output.errorBody,
  GatewayMessage: output.gatewayMessage,
  WebhookEvent: output.webhookEvent,
};

const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  // A request is described as the client sends it, before the route normalises it.
  typeMode: 'input',
  definitions: SCHEMAS,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  // A rule checked in code states itself through `metadata` (http/schemas/fields.ts).
  ignoreActions: ['check'],
  overrideSchema: ({ valibotSchema }) => (valibotSchema.type === 'unknown' ? {} : undefined),
};

const jsonSchema = (schema: v.GenericSchema): JsonSchema => {
  // Every definition is in components; a schema here only refers to them.
  const { $schema: _dialect, $defs: _definitions, ...converted } = toJsonSchema(schema, CONVERSION);
  return converted;
};
const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });

/** The error answers every route shares, each once under components.responses, by status. */
const ERRORS: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadInput',
    description: 'Bad input: `fields` names every field at fault. Nothing was written or sent.',
  },
  401: {
    name: 'Unauthenticated',
    description: 'No bearer token, or not a valid one (a rotated token after its grace period too).',
  },
  403: {
    name: 'Forbidden',
    description:
      "A token of another scope or of another store (`forbidden`), a disabled store's (`store_disabled`), or a callback whose signature does not verify.",
  },
  404: {
    name: 'NotFound',
    description: 'No such record, or no such store (`store_not_found`, as `Store-Id` may name).',
  },
  409: {
    name: 'Conflict',
    description:
      'A conflict: this `foreign_id` with another body, a request for it still in progress (see `Retry-After`), or a state that does not allow it.',
  },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json`.' },
  422: {
    name: 'RefusedByService',
    description:
      'The service refused the request: `fields` names the fields it refused. The `foreign_id` may be used again.',
  },
  429: {
    name: 'Throttled',
    description:
      'Too many requests. Over its store\'s requests a second: our error, `rate_limited`, naming the limit, with `Retry-After`; nothing was done. Over the route\'s throttle for the whole deployment: API Gateway\'s own answer, `{"message": "Too Many Requests"}`. Retry later, with backoff.',
  },
  500: {
    name: 'InternalError',
    description:
      'An unexpected failure, with no details; or `unrenderable_record`: the record holds a time no view can write (a list leaves it out).',
  },
  502: {
    name: 'ServiceFailed',
    description: 'The service failed, could not be reached, or refused our keys.',
  },
  503: {
    name: 'Unavailable',
    description:
      'Not possible now: a feature the merchant account lacks, a record not ready yet, or the table or secret store busy or unreachable (`temporarily_unavailable`); retry after `Retry-After`.',
  },
  504: {
    name: 'ServiceTimeout',
    description:
      'The service did not answer in time; the request may have arrived. Retrying with the same `foreign_id` is safe.',
  },
};

function errorResponses() {
  return Object.fromEntries(
    Object.entries(ERRORS).map(([status, { name, description }]) => [
      name,
      {
        description,
        content: {
          'application/json': {
            schema: status === '429' ? { oneOf: [ref('Error'), ref('GatewayMessage')] } : ref('Error'),
          },
        },
        ...(status === '429' && {
          headers: {
            'Retry-After': {
              description: "With `rate_limited`: the seconds to wait before the store's next request.",
              schema: { type: 'integer' },
            },
          },
        }),
      },
    ]),
  );
}

const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  // The admin token opens the storefront routes too, and the platform token every bearer route.
  storefront: [{ storefrontToken: [] }, { adminToken: [] }, { platformToken: [] }],
  admin: [{ adminToken: [] }, { platformToken: [] }],
  platform: [{ platformToken: [] }],
  service: [{ processingSignature: [] }],
  customer: [{ clientSecret: [] }],
  claimant: [{ claimToken: [] }],
  public: [],
};

/** The statuses a route may refuse with: what its entry implies, and what its domain adds. */
function errorStatuses(route: Route, operation: Operation): number[] {
  // Every route has a throttle (lib/routes.ts), which API Gateway enforces before the function runs; a store's
  // routes also have the store's limit.
  const statuses = new Set<number>([429, 500, ...(operation.errors ?? [])]);
  // A signed callback is refused, naming the field, for a time outside the range a record keeps.
  if (operation.body || operation.rawBody || operation.query || route.path.includes('{')) statuses.add(400);
  if (operation.body) statuses.add(415);
  // A path names a record, which may not exist; a signed route answers an unknown one as a wrong signature.
  if (route.path.includes('{') && route.access !== 'service') statuses.add(404);
  const bearer = route.access === 'storefront' || route.access === 'admin' || route.access === 'platform';
  if (bearer) [401, 403].forEach((s) => statuses.add(s));
  if (route.access === 'service') statuses.add(403);
  // `Store-Id` may name no store.
  if (route.access === 'storefront' || route.access === 'admin') [400, 404].forEach((s) => statuses.add(s));
  // DynamoDB or Secrets Manager busy or out of reach, past the SDK's retries.
  if (route.data.table.length > 0 || route.secrets.length > 0) statuses.add(503);
  if ((route.secrets as readonly string[]).includes('processingKeys'))
    [502, 504].forEach((s) => statuses.add(s));
  return [...statuses].sort();
}

function parameters(route: Route, operation: Operation) {
  const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema:
      name === 'event_id'
        ? { type: 'string', pattern: EVENT_ID.source, description: "A webhook event's id." }
        : name === 'store_id'
          ? jsonSchema(input.storeId('The store id.'))
          : jsonSchema(foreignId('The id the store gave it.')),
  }));
  const headers = Object.entries(operation.headers ?? {}).map(([name, description]) => ({
    name,
    in: 'header',
    description,
    schema: { type: 'string' },
  }));
  // The platform token acts for the store this names (as Stripe's `Stripe-Account`); a store's own token may only
  // name its own store.
  const storeHeader =
    route.access === 'storefront' || route.access === 'admin'
      ? [
          {
            name: 'Store-Id',
            in: 'header',
            required: false,
            description:
              'With the platform token: the store to act for, `default` when absent. A store token may name only its own store.',
            schema: jsonSchema(input.storeId('A store id.')),
          },
        ]
      : [];
  return [...inPath, ...queryParameters(operation.query), ...headers, ...storeHeader];
}

function queryParameters(query: FieldsSchema | undefined) {
  return Object.entries(query?.entries ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: schema.type !== 'optional',
    schema: jsonSchema(schema),
  }));
}

function responses(route: Route, operation: Operation) {
  const content = (schema: JsonSchema, mediaType = 'application/json') => ({ [mediaType]: { schema } });
  const answers = Object.entries(operation.answers).map(([status, answer]) => {
    const { description, schema, mediaType, headers } = answer;
    return [
      status,
      {
        description,
        ...(headers && {
          headers: Object.fromEntries(
            Object.entries(headers).map(([name, about]) => [
              name,
              { description: about, schema: { type: 'string' } },
            ]),
          ),
        }),
        ...(schema && { content: content(componentOf(schema) ?? jsonSchema(schema), mediaType) }),
      },
    ];
  });
  const errors = errorStatuses(route, operation)
    .filter((status) => !(status in operation.answers))
    .map((status) => [String(status), { $ref: `#/components/responses/${ERRORS[status].name}` }]);
  return Object.fromEntries([...answers, ...errors]);
}

function componentOf(schema: v.GenericSchema) {
  const name = (Object.keys(SCHEMAS) as Array<keyof typeof SCHEMAS>).find((key) => SCHEMAS[key] === schema);
  return name && ref(name);
}

function operationOf(route: Route) {
  const operation = operations[route.name as keyof typeof operations];
  const params = parameters(route, operation);
  return {
    operationId: route.name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase()),
    summary: operation.summary,
    ...(operation.description && { description: operation.description }),
    tags: [route.access],
    security: SECURITY[route.access],
    ...(params.length > 0 && { parameters: params }),
    ...((operation.body ?? operation.rawBody) && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: componentOf((operation.body ?? operation.rawBody)!) } },
      },
    }),
    responses: responses(route, operation),
  };
}

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Merchant payments plugin',
      version: '1.0.0',
      description:
        'Checkout, polling, cancels, refunds and balances for a store, over the Merchant Processing API v2. Amounts are exact decimal strings.',
    },
    servers: [{ url: '/', description: 'Where the plugin is served: the HTTP API, or `npm start` locally.' }],
    tags: [
      {
        name: 'storefront',
        description: "The store's backend, with the storefront token (or the admin token).",
      },
      { name: 'admin', description: 'A back office, with the admin token.' },
      {
        name: 'platform',
        description:
          "The platform token alone: it manages the deployment's stores, and acts for any store with `Store-Id`.",
      },
      { name: 'service', description: 'Called by the Merchant Processing API.' },
      {
        name: 'customer',
        description:
          "The customer's browser on the shop's page, from any origin, with one invoice's client secret.",
      },
      {
        name: 'claimant',
        description: "The customer on the plugin's claim page, with one refund's claim token.",
      },
      { name: 'public', description: 'No token.' },
    ],
    paths,
    webhooks: {
      event: {
        post: {
          operationId: 'webhookEvent',
          // The shop verifies the signature headers; it asks the plugin for no token.
          security: [],
          summary: "An event the plugin sends to the store's webhook endpoint",
          description:
            'Signed as Standard Webhooks: verify `webhook-signature` over `webhook-id`, `webhook-timestamp` and the raw body (docs/webhooks.md).',
          parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
            name,
            in: 'header',
            required: true,
            schema: { type: 'string' },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
          responses: { '200': { description: 'Any 2xx: delivered. Anything else is retried.' } },
        },
      },
    },
    components: {
      schemas: toJsonSchemaDefs(SCHEMAS, CONVERSION),
      responses: errorResponses(),
      securitySchemes: {
        storefrontToken: { type: 'http', scheme: 'bearer', description: "The storefront's bearer token." },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin bearer token.' },
        platformToken: {
          type: 'http',
          scheme: 'bearer',
          description: "The platform token: manages stores, and acts as any store's admin with `Store-Id`.",
        },
        processingSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'x-processing-signature',
          description: "The service's signature over the raw body, with its key in `x-processing-key`.",
        },
        clientSecret: {
          type: 'apiKey',
          in: 'header',
          name: 'x-client-secret',
          description: "One invoice's `client_secret`, from the checkout's answer.",
        },
        claimToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-claim-token',
          description: "One refund's claim token, from its claim link's fragment.",
        },
      },
    },
  };
}
