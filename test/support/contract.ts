// Holds every answer the end-to-end suites receive to openapi.json: its status must be one the operation
// documents, and its body must validate against that response's schema, so the document cannot drift.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import document from '../../openapi.json';

const BASE = 'openapi.json';
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
// The document's other parts are not JSON Schema; only their schemas are read, through $ref.
ajv.addVocabulary(['paths', 'components']);
ajv.addSchema({ $id: BASE, paths: document.paths, components: document.components });

/** `/invoices/{foreign_id}` matches `/invoices/order-1`, as API Gateway matches it. */
const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const validators = new Map<string, ValidateFunction>();

type Response = { content?: unknown; $ref?: string };
type Responses = Record<string, Response>;
const sharedResponses = (document.components as { responses: Record<string, Response> }).responses;

/** The response's body schema; null for a response documented without a body, such as a 304. */
function validatorFor(template: string, method: string, status: number): ValidateFunction | null | undefined {
  const operation = (document.paths as Record<string, Record<string, { responses: Responses }>>)[template][
    method
  ];
  const listed = operation?.responses[status];
  if (!listed) return undefined;
  // A shared error answer is listed by reference to components.responses.
  const shared = listed.$ref?.replace('#/components/responses/', '');
  const response = shared ? sharedResponses[shared] : listed;
  if (!response.content) return null;
  // JSON, or the one other type a response names (an export's text/csv, whose body is read as text).
  const [mediaType] = Object.keys(response.content);
  const at = shared
    ? pointer('components', 'responses', shared, 'content', mediaType, 'schema')
    : pointer('paths', template, method, 'responses', String(status), 'content', mediaType, 'schema');
  let validate = validators.get(at);
  if (!validate) {
    validate = ajv.compile({ $ref: `${BASE}#/${at}` });
    validators.set(at, validate);
  }
  return validate;
}

/** Throws, naming what differs, unless the document describes this answer. */
export function expectDocumented(method: string, url: string, status: number, body: unknown): void {
  const path = new URL(url).pathname;
  const match = templates.find(({ pattern }) => pattern.test(path));
  const where = `${method} ${path} answered ${status}`;
  if (!match) {
    // No route of ours: API Gateway's own 404.
    if (status === 404) return;
    throw new Error(`${where}, but openapi.json has no such path`);
  }
  const validate = validatorFor(match.template, method.toLowerCase(), status);
  if (validate === undefined)
    throw new Error(`${where}, a status openapi.json does not document for ${match.template}`);
  if (validate === null) {
    if (body === undefined || body === '') return;
    throw new Error(`${where}, with a body where openapi.json documents none: ${JSON.stringify(body)}`);
  }
  if (!validate(body)) {
    throw new Error(
      `${where}, a body openapi.json does not describe: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
    );
  }
}

/** Throws, naming what differs, unless the body is a webhook event as openapi.json describes it. */
export function expectDocumentedWebhook(body: unknown): void {
  const at = pointer('components', 'schemas', 'WebhookEvent');
  const validate = validators.get(at) ?? ajv.compile({ $ref: `${BASE}#/${at}` });
  validators.set(at, validate);
  if (!validate(body)) {
    throw new Error(
      `a webhook openapi.json does not describe: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
    );
  }
}
