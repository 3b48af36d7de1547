import { randomBytes } from 'node:crypto';
import { StoreAdmin } from '../domain/store-admin';
import { tokenDigest } from '../domain/token-holders';
import { endpointRefusal } from '../webhooks/sender';
import { newWebhookSecret } from '../webhooks/signing';
import { allowLoopbackHttp, announceEvents } from './webhook-events';
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
  urlRefusal: (url) => endpointRefusal(url, allowLoopbackHttp()),
  webhooksOn: announceEvents,
  now: Date.now,
});
