import { randomBytes } from 'node:crypto';
import { StoreAdmin } from '../domain/store-admin';
import { tokenDigest } from '../domain/token-holders';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../lib/routes';
import { endpointRefusal } from '../webhooks/sender';
import { newWebhookSecret } from '../webhooks/signing';
import { announceEvents } from './webhook-events';
import { storeRegistry } from './store-registry';
import { storeSecrets } from './store-secrets';

/** Store management, for the platform's routes: each change reads the store item itself, never the cache. */
export const storeAdmin = new StoreAdmin({
  registry: storeRegistry.forChanges(),
  secrets: storeSecrets,
  // 256 bits, URL-safe, as the deployment's own tokens (lib/tokens/fill-tokens.ts).
  newToken: () => randomBytes(32).toString('base64url'),
  newWebhookSecret,
  hashToken: (token) => tokenDigest(token).toString('hex'),
  // As the webhook dispatcher sends: https, or http://127.0.0.1 where the deployment allows it (locally).
  urlRefusal: (url) => endpointRefusal(url, process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === 'true'),
  webhooksOn: announceEvents,
  // Twice the function's timeout: a holder's invocation has ended, and any write it sent has landed, before its
  // lease does.
  secretLeaseMs: 2 * API_FUNCTION_TIMEOUT_SECONDS * 1000,
  now: Date.now,
});
