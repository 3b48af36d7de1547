import { startGateway } from '../../local/gateway';
import { docsPage } from '../../local/docs-page';
import { openApiDocument } from '../../http/schemas/openapi';
import { routes } from '../../lib/routes';

test('the reference page shows every route and schema, and loads nothing: no script, no stylesheet from elsewhere', () => {
  const document = openApiDocument();
  const page = docsPage(document);
  for (const { method, path } of routes) expect(page).toContain(`<code>${method} ${path}</code>`);
  for (const name of Object.keys(document.components.schemas)) expect(page).toContain(`<h2 id="${name}">`);
  expect(page).not.toMatch(/<script|<link|src=/i);
});

test('the local gateway serves a page on GET only, beside the routes', async () => {
  const gateway = await startGateway([], 0, {
    pages: async (path) =>
      path === '/docs' ? { contentType: 'text/html; charset=utf-8', body: '<p>hi</p>' } : undefined,
  });
  try {
    const page = await fetch(`${gateway.url}/docs`);
    expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([
      200,
      'text/html; charset=utf-8',
      '<p>hi</p>',
    ]);
    expect((await fetch(`${gateway.url}/docs`, { method: 'POST' })).status).toBe(404);
  } finally {
    await gateway.close();
  }
});
