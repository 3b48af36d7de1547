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
  // The admin token opens the storefront routes too.
  const SCHEMES = {
    storefront: ['storefrontToken', 'adminToken'],
    admin: ['adminToken'],
    service: ['processingSignature'],
    customer: ['clientSecret'],
  };
  expect(documented).toEqual(
    routes.map(({ method, path, access }) => ({
      route: `${method} ${path}`,
      security: access === 'public' ? [] : SCHEMES[access].map((scheme) => ({ [scheme]: [] })),
    })),
  );
});
