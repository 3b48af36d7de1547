// The web apps' canonical paths, the same locally (local/stack.ts) and in AWS (lib/web-hosting.ts): an app is
// served under `/<app>/`, and the site's root is the API reference.

/** Where `/` sends a browser: the API reference, the page a developer opening the API's address looks for. */
export const HOME_PATH = '/docs/';

/** Where a browser asking for `path` belongs, if elsewhere: `/` is HOME_PATH, `/<app>` is `/<app>/`. */
export function canonicalPath(path: string, apps: readonly string[]): string | undefined {
  if (path === '/') return HOME_PATH;
  return apps.includes(path.slice(1)) ? `${path}/` : undefined;
}
