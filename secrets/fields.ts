// The secrets: their JSON fields, and the environment variables that name them. Plain data, shared by the code
// that reads the secrets and by the stack (lib/) that creates them, grants them and fills the tokens.

/** The environment variable naming each secret; a function gets only those of the secrets it may read. */
export const SECRET_ENV = {
  /** The processing keys: they sign every call to the service, withdrawals included. */
  processingKeys: 'PROCESSING_KEYS_SECRET_ID',
  /** The bearer tokens that the storefront and the back office present. */
  tokens: 'TOKENS_SECRET_ID',
  /** The secret that signs the webhooks to the shop; the shop holds it too, to verify them. */
  webhookSecret: 'WEBHOOK_SECRET_ID',
  /** The platform token: it manages stores, and acts for any store with `Store-Id` (issue 33). */
  platformToken: 'PLATFORM_TOKEN_SECRET_ID',
} as const;

export type SecretName = keyof typeof SECRET_ENV;

/** Issued in the merchant administration; the operator puts them in after the first deploy. */
export const PROCESSING_KEY_FIELDS = {
  apiKey: 'processing_api_key',
  secretKey: 'processing_secret_key',
} as const;

export type TokenScope = 'storefront' | 'admin';

/** Generated once, at the first deploy; rotated by the operator (secrets/bearer-tokens.ts names the previous ones). */
export const TOKEN_FIELDS = {
  storefront: 'storefront_token',
  admin: 'admin_token',
} as const satisfies Record<TokenScope, string>;

/** Generated once, at the first deploy, as the bearer tokens are; `previous_<field>` during a rotation, as theirs. */
export const PLATFORM_TOKEN_FIELD = 'platform_token';

/** Where the stores' own secrets are, `<prefix><store id>`: the stack ends the prefix in `/stores/`. */
export const STORE_SECRETS_PREFIX_ENV = 'STORE_SECRETS_PREFIX';

/** `whsec_...` (Standard Webhooks); during a rotation the one before it too, and every webhook is signed with both. */
export const WEBHOOK_SECRET_FIELDS = {
  current: 'webhook_secret',
  previous: 'previous_webhook_secret',
} as const;
