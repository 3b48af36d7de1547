import { buildWebAssets } from '../../web/build';

test('a stylesheet an entry imports is served as CSS, under the entry’s name', async () => {
  const assets = await buildWebAssets();
  const stylesheet = assets.get('/console/console.css')!;
  expect(stylesheet.contentType).toBe('text/css; charset=utf-8');
  // uPlot's rules, imported by the chart, and the console's own.
  expect(stylesheet.body.toString()).toContain('.uplot');
  expect(stylesheet.body.toString()).toContain('.topbar');
  expect(assets.get('/console/console.js')!.contentType).toBe('text/javascript; charset=utf-8');
});

test('every page’s head starts with the shared head: the charset first, the viewport and the app’s own icon', async () => {
  const assets = await buildWebAssets();
  const pages = [...assets].filter(([urlPath]) => urlPath.endsWith('/index.html'));
  expect(pages.map(([urlPath]) => urlPath).sort()).toEqual([
    '/claim/index.html',
    '/console/index.html',
    '/demo/index.html',
    '/docs/index.html',
  ]);
  for (const [, page] of pages) {
    const head = /<head>\s*([\s\S]*?)<\/head>/.exec(page.body.toString())![1];
    expect(head).toMatch(
      /^<meta charset="utf-8" \/>\s*<meta name="viewport"[^>]*\/>\s*<link rel="icon" href="favicon.svg"/,
    );
    expect(head.match(/<meta charset/g)).toHaveLength(1);
  }
});
