import { createHmac, hkdfSync } from 'node:crypto';
import type { CustomerSecrets, KeySource } from '../domain/ports';
import { CLAIM_TOKEN_MARK, CLIENT_SECRET_MARK } from '../domain/ids';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';

/**
 * What a derived secret opens: its mark (domain/customer-secret.ts reads the store from it) and the label that makes
 * its key like no other key made from the processing secret.
 */
const PURPOSES = {
  clientSecret: { mark: CLIENT_SECRET_MARK, label: 'merchant-payments-plugin client secret v1' },
  claimToken: { mark: CLAIM_TOKEN_MARK, label: 'merchant-payments-plugin refund claim v1' },
} as const;

/**
 * Client secrets and refund claim tokens (`purpose`), derived rather than stored, so that a repeated checkout
 * answers the same secret and the table never holds one (docs/internals.md, "The client secret").
 */
export function customerSecretIssuer(
  keys: KeySource,
  storeId: StoreId,
  purpose: keyof typeof PURPOSES = 'clientSecret',
): CustomerSecrets {
  const { mark: start, label } = PURPOSES[purpose];
  // `cs_<storeId>!`: the store that domain/customer-secret.ts reads from a secret.
  const mark = storeId === DEFAULT_STORE_ID ? start : `${start}${storeId}!`;
  const scope = storeId === DEFAULT_STORE_ID ? '' : `${storeId}\n`;
  // Derived once per processing secret, and again only when that secret changes.
  let derived: { from: string; key: Buffer } | undefined;
  const keyFrom = (secretKey: string) => {
    if (derived?.from !== secretKey) {
      derived = { from: secretKey, key: Buffer.from(hkdfSync('sha256', secretKey, '', label, 32)) };
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

/**
 * The key a store's checkouts digest their payer under (domain/hash.ts, `keyedDigest`): derived (HKDF) from the
 * processing secret key with a label of its own and the store's id, so that it is like no other key, and never kept.
 * A change of the processing secret changes it: a retry after it, with a payer, is told from the request it repeats.
 */
export function senderDigestKey(keys: KeySource, storeId: StoreId): () => Promise<Buffer> {
  let derived: { from: string; key: Buffer } | undefined;
  return async () => {
    const secretKey = (await keys.get()).secretKey;
    if (derived?.from !== secretKey) {
      const info = `merchant-payments-plugin sender digest v1\n${storeId}`;
      derived = { from: secretKey, key: Buffer.from(hkdfSync('sha256', secretKey, '', info, 32)) };
    }
    return derived.key;
  };
}
