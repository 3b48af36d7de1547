// The checkout widget's size as a shop's page loads it: web/build.ts's minified module, QR encoder included,
// gzipped at the level a CDN serves (9), and its stylesheet beside it.
import { gzipSync } from 'node:zlib';
import { buildWebAssets } from '../web/build';
import { atMost, figure, type Figure } from './figures';

const KB = 1024;

export async function widgetSizeFigures(): Promise<Figure[]> {
  const assets = await buildWebAssets();
  const gzipped = (file: string) => gzipSync(assets.get(`/widget/${file}`)!.body, { level: 9 }).length / KB;
  const script = assets.get('/widget/widget.js')!.body.length / KB;
  return [
    figure({
      id: 'widget.gzipped',
      label: 'checkout widget (widget.js with its QR encoder), gzipped',
      value: Number(gzipped('widget.js').toFixed(2)),
      unit: 'KB',
      detail: `${script.toFixed(1)} KB minified; widget.css ${gzipped('widget.css').toFixed(2)} KB gzipped`,
      target: atMost(15),
    }),
  ];
}
