import type { Tokens } from '../http/route';
import { TOKEN_FIELDS } from './fields';
import { readSecretFields } from './json-secret';

/** The tokens secret: `storefront_token` and `admin_token`. */
export function parseTokens(text: string | undefined): Tokens {
  const { storefront, admin } = readSecretFields('bearer tokens', text, TOKEN_FIELDS);
  return { storefrontToken: storefront, adminToken: admin };
}
