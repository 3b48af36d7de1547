import { createHmac, hkdfSync } from 'node:crypto';
import type { ClientSecrets, KeySource } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';

/** Names what the derived key is for, so that it is like no other key made from the processing secret. */
const KEY_LABEL = 'merchant-payments-plugin client secret v1';

/**
 * Client secrets derived, not stored: an HMAC of the invoice's foreign_id and creation time under a key derived
 * (HKDF) from the processing secret key, which only the checkout and the functions that call the service hold.
 * The same invoice gets the same secret every time; no secret is ever an HMAC under the processing key itself.
 * Another store's secrets name the store, and its HMAC covers the store's id too: stores sharing one account never
 * share a secret (domain/client-secret.ts).
 */
export function clientSecretIssuer(keys: KeySource, storeId: StoreId): ClientSecrets {
  // `cs_<storeId>!`: the store that domain/client-secret.ts reads from a secret.
  const mark = storeId === DEFAULT_STORE_ID ? 'cs_' : `cs_${storeId}!`;
  const scope = storeId === DEFAULT_STORE_ID ? '' : `${storeId}\n`;
  // Derived once per processing secret, and again only when that secret changes.
  let derived: { from: string; key: Buffer } | undefined;
  const keyFrom = (secretKey: string) => {
    if (derived?.from !== secretKey) {
      derived = { from: secretKey, key: Buffer.from(hkdfSync('sha256', secretKey, '', KEY_LABEL, 32)) };
    }
    return derived.key;
  };
  return {
    async secretFor({ foreignId, createdAt }) {
      const key = keyFrom((await keys.get()).secretKey);
      const hmac = createHmac('sha256', key).update(`${scope}${foreignId}\n${createdAt}`).digest('base64url');
      return `${mark}${hmac}`;
    },
  };
}
