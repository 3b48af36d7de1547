import type { KeySource } from '../domain/ports';
import {
  DEFAULT_STORE_ID,
  signingSecrets,
  type StoreAccount,
  type StoreAccounts,
  type StoreId,
  type StoreRecord,
  type StoreSecretValues,
} from '../domain/stores';
import { NotConfiguredError } from '../domain/errors';
import { cacheSecret, type CachedSecret } from '../secrets/cached-secret';
import { STORE_SECRETS_PREFIX_ENV } from '../secrets/fields';
import { secretsManagerLoader } from '../secrets/secrets-manager';
import { parseStoreSecret } from '../secrets/store-secrets';
import { awsClientConfig } from './aws-clients';
import { requireEnv } from './env';
import { secretTtlMs } from './secret';
import { storeRegistry } from './store-registry';

/** The default store, on the deployment's own processing account; its webhooks go where the deployment says. */
const DEFAULT_ACCOUNT: StoreAccount = {
  storeId: DEFAULT_STORE_ID,
  status: 'active',
  processing: { account: 'shared' },
  unpinned: 'shared',
};

/** One per store in the warm container: its secret's cache lives as long as its registry item is unchanged. */
const built = new Map<StoreId, { record: StoreRecord; account: StoreAccount }>();
const secretsOf = new Map<StoreId, CachedSecret<StoreSecretValues>>();

/**
 * Every store this deployment serves. The default store's account is the deployment's own, with no table read;
 * another store's comes from its registry item (cached, runtime/store-registry.ts) and its secret, read only when
 * its keys or webhook secrets are needed. A function serving the default store alone reads neither.
 */
export const storeAccounts: StoreAccounts = {
  get: async (storeId) => {
    if (storeId === DEFAULT_STORE_ID) return DEFAULT_ACCOUNT;
    const record = await storeRegistry.get(storeId);
    if (!record) return undefined;
    const known = built.get(storeId);
    if (known?.record === record) return known.account;
    // A changed store item may name new keys: its secret is read afresh (a move to its own account, say).
    if (known && known.record.version !== record.version) secretsOf.delete(storeId);
    const account = accountOf(record);
    built.set(storeId, { record, account });
    return account;
  },
};

function accountOf(record: StoreRecord): StoreAccount {
  // Looked up at each call, so that a client kept across store changes signs with the keys of the secret now.
  const secret = () => storeSecret(record.id);
  const keys: KeySource = {
    get: async () => ownKeys(await secret().get()),
    refresh: async () => ownKeys(await secret().refresh()),
  };
  return {
    storeId: record.id,
    status: record.status,
    processing:
      record.account === 'own' && record.baseUrl !== undefined
        ? { account: 'own', baseUrl: record.baseUrl, keys }
        : { account: 'shared' },
    unpinned: record.movedFromShared === undefined ? record.account : 'shared',
    ...(record.travelRule !== undefined && { travelRule: record.travelRule }),
    ...(record.travelRuleSender !== undefined && { travelRuleSender: record.travelRuleSender }),
    ...(record.claimLinkDays !== undefined && { claimLinkDays: record.claimLinkDays }),
    ...(record.webhookUrl !== undefined && {
      webhook: {
        url: record.webhookUrl,
        secrets: async () => signingSecrets(record, (await secret().get()).webhookSecrets, Date.now()),
      },
    }),
  };
}

function ownKeys(values: StoreSecretValues) {
  if (!values.processing) throw new NotConfiguredError("The store's processing keys are not in its secret");
  return values.processing;
}

/** The store's secret, fetched once per SECRET_TTL_SECONDS as the deployment's own are. */
function storeSecret(storeId: StoreId): CachedSecret<StoreSecretValues> {
  let secret = secretsOf.get(storeId);
  if (!secret) {
    const load = () =>
      secretsManagerLoader(`${requireEnv(STORE_SECRETS_PREFIX_ENV)}${storeId}`, awsClientConfig())();
    secret = cacheSecret(load, parseStoreSecret, secretTtlMs());
    secretsOf.set(storeId, secret);
  }
  return secret;
}
