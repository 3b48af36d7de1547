import { readFileSync } from 'node:fs';
import { documentText, OPENAPI_FILE } from '../../../http/schemas/write-openapi';
import { openApiDocument } from '../../../http/schemas/openapi';
import { routes } from '../../../lib/routes';

test('openapi.json is what the generator makes now: run `npm run openapi` after changing a route or a schema', () => {
  expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(documentText());
});

test('every route of the table is in the document, with the security its access scope says', () => {
  const { paths } = openApiDocument();
  const documented = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      route: `${method.toUpperCase()} ${path}`,
      security: (operation as { security: unknown }).security,
    })),
  );
  // The admin token opens the storefront routes too, and the platform token every bearer route.
  const SCHEMES = {
    storefront: ['storefrontToken', 'adminToken', 'platformToken'],
    admin: ['adminToken', 'platformToken'],
    platform: ['platformToken'],
    service: ['processingSignature'],
    customer: ['clientSecret'],
    claimant: ['claimToken'],
  };
  expect(documented).toEqual(
    routes.map(({ method, path, access }) => ({
      route: `${method} ${path}`,
      security: access === 'public' ? [] : SCHEMES[access].map((scheme) => ({ [scheme]: [] })),
    })),
  );
});

test('every request body and every response body in the document has a schema, and every schema it names exists', () => {
  const document = openApiDocument();
  const named = new Set(Object.keys(document.components.schemas as object));
  const missing: string[] = [];
  const refs: string[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const { requestBody, responses } = operation as {
        requestBody?: { content: Record<string, { schema?: { $ref?: string } }> };
        responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
      };
      const bodies = [
        ...(requestBody ? [['request', requestBody.content] as const] : []),
        ...Object.entries(responses).map(([status, answer]) => [status, answer.content] as const),
      ];
      for (const [what, content] of bodies) {
        for (const [type, media] of Object.entries(content ?? {})) {
          if (!media.schema) missing.push(`${method.toUpperCase()} ${path} ${what} ${type}`);
          if (media.schema?.$ref) refs.push(media.schema.$ref.replace('#/components/schemas/', ''));
        }
      }
    }
  }
  expect(missing).toEqual([]);
  expect(refs.filter((name) => !named.has(name))).toEqual([]);
  // The routes that read a body document it: the order refund's fields, and the service's signed callback.
  const bodyOf = (path: string) =>
    (document.paths[path] as { post: { requestBody?: { content: Record<string, { schema: unknown }> } } })
      .post.requestBody?.content['application/json'].schema;
  expect(bodyOf('/invoices/{foreign_id}/refunds')).toEqual({ $ref: '#/components/schemas/OrderRefundBody' });
  expect(bodyOf('/callbacks')).toEqual({ $ref: '#/components/schemas/CallbackBody' });
});

test("a checkout's amount is documented as a decimal string or an exact JSON number, as the API reads it", () => {
  const schemas = openApiDocument().components.schemas as Record<
    string,
    { properties: Record<string, unknown> }
  >;
  expect(schemas.CheckoutBody.properties.amount).toMatchObject({
    oneOf: [{ type: 'string' }, { type: 'number' }],
  });
});
