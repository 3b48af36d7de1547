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
