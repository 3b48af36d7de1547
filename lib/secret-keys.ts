// The shape of the one plugin secret (a JSON object). Plain data, shared by the stack and the code that reads it.

/** Each field's key in the secret's JSON. */
export const SECRET_FIELDS = {
  processingApiKey: 'processing_api_key',
  processingSecretKey: 'processing_secret_key',
  storefrontToken: 'storefront_token',
  adminToken: 'admin_token',
} as const;

/** Issued in the merchant administration; the operator puts them in after the first deploy. */
export const PROCESSING_KEY_NAMES = [
  SECRET_FIELDS.processingApiKey,
  SECRET_FIELDS.processingSecretKey,
] as const;

/** Bearer tokens the plugin's own callers present; generated once, at the first deploy. */
export const TOKEN_NAMES = [SECRET_FIELDS.storefrontToken, SECRET_FIELDS.adminToken] as const;

/** The value of the processing keys until the operator replaces it. */
export const PROCESSING_KEY_PLACEHOLDER = 'REPLACE_ME';
