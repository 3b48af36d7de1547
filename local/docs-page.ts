// `npm start` serves this at /docs: the OpenAPI document as one plain HTML page, made here with no script and
// nothing from a CDN, since the machine may have no network.
type Schema = {
  $ref?: string;
  type?: string;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  additionalProperties?: boolean | Schema;
  [keyword: string]: unknown;
};

interface Operation {
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Array<{ name: string; in: string; required: boolean; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  /** A response without `content` has no body, such as a 304; a shared one is a `$ref` to components.responses. */
  responses: Record<string, Response | { $ref: string }>;
}

interface Response {
  description: string;
  content?: Record<string, { schema: Schema }>;
}

interface Document {
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Response> };
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>');

const refName = (ref: string) => ref.split('/').pop() as string;

function typeOf(schema: Schema): string {
  if (schema.$ref) return `<a href="#${refName(schema.$ref)}">${refName(schema.$ref)}</a>`;
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  if (schema.type === 'array' && schema.items) return `array of ${typeOf(schema.items)}`;
  return schema.type ?? 'any';
}

const RULES = ['enum', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'default'];

function rulesOf(schema: Schema): string {
  const own = RULES.filter((rule) => schema[rule] !== undefined).map(
    (rule) => `${rule}: <code>${escape(JSON.stringify(schema[rule]))}</code>`,
  );
  const inner = schema.anyOf?.map(rulesOf).filter(Boolean) ?? [];
  return [...own, ...inner].join(', ');
}

function describe(schema: Schema): string {
  return schema.description ?? schema.anyOf?.find((option) => option.description)?.description ?? '';
}

function fieldRows(rows: Array<{ name: string; where?: string; required: boolean; schema: Schema }>): string {
  const cells = rows.map(
    ({ name, where, required, schema }) =>
      `<tr><td><code>${escape(name)}</code>${where ? ` (${where})` : ''}${required ? ' <b>required</b>' : ''}</td>` +
      `<td>${typeOf(schema)}</td><td>${escape(describe(schema))}</td><td>${rulesOf(schema)}</td></tr>`,
  );
  return `<table><tr><th>field</th><th>type</th><th>meaning</th><th>rules</th></tr>${cells.join('')}</table>`;
}

function propertiesOf(schema: Schema): string {
  if (!schema.properties) return `<p>${typeOf(schema)}</p>`;
  const required = new Set(schema.required ?? []);
  return fieldRows(
    Object.entries(schema.properties).map(([name, field]) => ({
      name,
      required: required.has(name),
      schema: field,
    })),
  );
}

function operationSection(
  path: string,
  method: string,
  operation: Operation,
  shared: Record<string, Response>,
): string {
  const body = operation.requestBody?.content['application/json'].schema;
  const responses = Object.entries(operation.responses).map(([status, listed]) => {
    const { description, content } = '$ref' in listed ? shared[refName(listed.$ref)] : listed;
    const [mediaType, body] = Object.entries(content ?? {})[0] ?? [];
    const shown = body
      ? `${typeOf(body.schema)}${mediaType === 'application/json' ? '' : ` (${mediaType})`}`
      : 'no body';
    return `<tr><td>${status}</td><td>${shown}</td><td>${escape(description)}</td></tr>`;
  });
  return [
    `<h2 id="${method}-${escape(path)}"><code>${method.toUpperCase()} ${escape(path)}</code> ${escape(operation.summary)}</h2>`,
    `<p>Access: <b>${operation.tags.join(', ')}</b>. ${escape(operation.description ?? '')}</p>`,
    operation.parameters
      ? `<h3>Parameters</h3>${fieldRows(operation.parameters.map((p) => ({ ...p, where: p.in })))}`
      : '',
    body ? `<h3>Body</h3><p>${typeOf(body)}</p>` : '',
    `<h3>Answers</h3><table><tr><th>status</th><th>body</th><th>when</th></tr>${responses.join('')}</table>`,
  ].join('\n');
}

/** `served` is the generator's document (http/schemas/openapi.ts), read as the JSON it serves. */
export function docsPage(served: object): string {
  const document = served as Document;
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) =>
      operationSection(path, method, operation, document.components.responses),
    ),
  );
  const schemas = Object.entries(document.components.schemas).map(
    ([name, schema]) =>
      `<h2 id="${name}">${name}</h2><p>${escape(describe(schema))}</p>${propertiesOf(schema)}`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(document.info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
code{background:#f3f3f3;padding:0 .2rem}h2{margin-top:2.5rem;border-top:1px solid #ddd;padding-top:1rem}</style></head>
<body><header><h1>${escape(document.info.title)}</h1><p>${escape(document.info.description)}</p>
<p>The document itself: <a href="/openapi.json">/openapi.json</a>.</p></header>
<main><section aria-label="Routes">
${operations.join('\n')}
</section><section aria-labelledby="schemas"><h1 id="schemas">Schemas</h1>
${schemas.join('\n')}
</section></main>
</body></html>
`;
}
