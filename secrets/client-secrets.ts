import { createHmac, hkdfSync } from 'node:crypto';
import type { ClientSecrets, KeySource, SecretHolder } from '../domain/ports';

/** Names what the derived key is for, so that it is like no other key made from the processing secret. */
const KEY_LABEL = 'merchant-payments-plugin client secret v1';

/**
 * Client secrets derived, not stored: an HMAC of the invoice's foreign_id and creation time under a key derived
 * (HKDF) from the processing secret key, which only the checkout and the functions that call the service hold.
 * The same invoice gets the same secret every time; no secret is ever an HMAC under the processing key itself.
 */
export function clientSecretIssuer(keys: KeySource): ClientSecrets {
  // HKDF costs a checkout about 50 µs: derived once per processing secret, again only when it changes.
  let derived: { from: string; key: Buffer } | undefined;
  const keyFrom = (secretKey: string) => {
    if (derived?.from !== secretKey) {
      derived = { from: secretKey, key: Buffer.from(hkdfSync('sha256', secretKey, '', KEY_LABEL, 32)) };
    }
    return derived.key;
  };
  const secretWith = (key: Buffer, { foreignId, createdAt }: SecretHolder) =>
    `cs_${createHmac('sha256', key).update(`${foreignId}\n${createdAt}`).digest('base64url')}`;
  return {
    async secretFor(invoice) {
      return secretWith(keyFrom((await keys.get()).secretKey), invoice);
    },
    prepare(invoice, hash) {
      const issued = (key: Buffer) => {
        const secret = secretWith(key, invoice);
        return { secret, hash: hash(secret) };
      };
      let ahead: { from: string; issued: ReturnType<typeof issued> } | undefined;
      // Immediates run after the I/O callbacks and promise jobs in hand: a request being sent is on its socket by
      // then. A key fetch left running here could outlive the invocation, so only a key in hand is used.
      const deferred = setImmediate(() => {
        try {
          if (derived) ahead = { from: derived.from, issued: issued(derived.key) };
        } catch {
          // Made at `issue` instead, where an error reaches the caller rather than ending the process.
        }
      });
      return {
        async issue() {
          clearImmediate(deferred);
          const { secretKey } = await keys.get();
          return ahead?.from === secretKey ? ahead.issued : issued(keyFrom(secretKey));
        },
      };
    },
  };
}
