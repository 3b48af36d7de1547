// The browser apps under web/apps/<app>/ (the checkout widget, the demo store, the operator console), built the
// same way for `npm start`, which serves them from memory, and for the stack, which uploads them to S3. Each
// top-level .ts file of an app is an entry, bundled with what it imports into one ES module of the same name (and
// the CSS it imports into one stylesheet of the same name); its other top-level files (HTML, CSS, images) are
// served as they are, but that each page's <head> starts with web/apps/shared/head.html. web/apps/shared/ is
// imported or read by the build, never served.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const WEB_APPS_DIR = path.join(__dirname, 'apps');
const SHARED = 'shared';

export interface WebAsset {
  contentType: string;
  body: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The apps there are: every folder of web/apps but the shared one. */
export function webApps(): string[] {
  return readdirSync(WEB_APPS_DIR).filter(
    (name) => name !== SHARED && statSync(path.join(WEB_APPS_DIR, name)).isDirectory(),
  );
}

/** Every app's files by URL path, `/<app>/<file>`; an app's index.html also answers `/<app>/`. */
export async function buildWebAssets(): Promise<Map<string, WebAsset>> {
  const assets = new Map<string, WebAsset>();
  for (const app of webApps())
    for (const [urlPath, asset] of await buildWebApp(app)) assets.set(urlPath, asset);
  return assets;
}

/** One app's files, as buildWebAssets gives them: `npm start` builds each app at its first request. */
export async function buildWebApp(app: string): Promise<Map<string, WebAsset>> {
  const assets = new Map<string, WebAsset>();
  for (const [file, asset] of await buildApp(app)) {
    assets.set(`/${app}/${file}`, asset);
    if (file === 'index.html') assets.set(`/${app}/`, asset);
  }
  return assets;
}

/** Writes every app's files under `dir`, as `<app>/<file>`: what the stack uploads to its bucket. */
export async function writeWebAssets(dir: string): Promise<void> {
  for (const [urlPath, asset] of await buildWebAssets()) {
    // `/<app>/` is index.html again; the distribution answers it from the file.
    if (urlPath.endsWith('/')) continue;
    const file = path.join(dir, urlPath);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, asset.body);
  }
}

/** The page with the head every page shares (charset, viewport, icon) at the start of its own. */
function withSharedHead(page: Buffer, file: string): Buffer {
  const html = page.toString('utf8');
  if (!html.includes('<head>')) throw new Error(`${file} has no <head> for the shared head to start`);
  const shared = readFileSync(path.join(WEB_APPS_DIR, SHARED, 'head.html'), 'utf8');
  return Buffer.from(html.replace('<head>', `<head>\n${shared}`));
}

async function buildApp(app: string): Promise<Map<string, WebAsset>> {
  const dir = path.join(WEB_APPS_DIR, app);
  const files = readdirSync(dir).filter((file) => statSync(path.join(dir, file)).isFile());
  const entries = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  const built = new Map<string, WebAsset>();
  for (const file of files) {
    const type = CONTENT_TYPES[path.extname(file)];
    if (!type) continue;
    const body = readFileSync(path.join(dir, file));
    built.set(file, { contentType: type, body: file.endsWith('.html') ? withSharedHead(body, file) : body });
  }
  if (entries.length === 0) return built;
  const { outputFiles } = await build({
    entryPoints: entries.map((file) => path.join(dir, file)),
    outdir: dir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  for (const output of outputFiles) {
    built.set(path.relative(dir, output.path), {
      contentType: CONTENT_TYPES[path.extname(output.path)],
      body: Buffer.from(output.contents),
    });
  }
  return built;
}
