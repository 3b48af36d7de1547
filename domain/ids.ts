// Ids that the model, the ports and the stores all use, in a file that imports nothing: none imports another for them.

/** A store's id; domain/stores.ts holds its rule (`STORE_ID`) and the default store's (`DEFAULT_STORE_ID`). */
export type StoreId = string;

/**
 * A store's account at the payment service: `shared`, the deployment's (the default store's keys), with the store's
 * prefix on upstream foreign_ids; `own`, the store's own keys and base URL.
 */
export type AccountKind = 'shared' | 'own';

/**
 * The start of a derived secret (secrets/customer-secrets.ts makes them, domain/customer-secret.ts reads the store from
 * them): a client secret opens one invoice's public view, a claim token one refund's claim link.
 */
export const CLIENT_SECRET_MARK = 'cs_';
export const CLAIM_TOKEN_MARK = 'rc_';
