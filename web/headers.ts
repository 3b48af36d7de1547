// The security headers of every page and asset under web/apps: CloudFront's response headers policy sets them in
// AWS, and the local gateway sets the same ones, so that a page that breaks them breaks in the browser tests too.

/** No inline script or style anywhere; each app loads only its own files and talks only to its own origin. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The apps whose files shops' pages load from their own origins: the widget's module and its stylesheet. */
export const CROSS_ORIGIN_APPS: readonly string[] = ['widget'];

/** A module script from another origin is fetched with CORS; no credentials, so any origin may have it. */
export const CROSS_ORIGIN_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
};

/**
 * The API reference (web/apps/docs) is drawn by Scalar, which sets inline styles as it renders: its page alone
 * allows them. Its scripts are still only its own, and it holds no token or secret.
 */
export const REFERENCE_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
  "style-src 'self'",
  "style-src 'self' 'unsafe-inline'",
);

/** The headers of the file at `/<app>/...`. */
export function webHeaders(path: string): Readonly<Record<string, string>> {
  const app = path.split('/')[1];
  if (app === 'docs')
    return { ...WEB_SECURITY_HEADERS, 'content-security-policy': REFERENCE_CONTENT_SECURITY_POLICY };
  return CROSS_ORIGIN_APPS.includes(app)
    ? { ...WEB_SECURITY_HEADERS, ...CROSS_ORIGIN_HEADERS }
    : WEB_SECURITY_HEADERS;
}
