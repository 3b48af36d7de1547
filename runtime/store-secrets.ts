import type { StoreSecrets } from '../domain/stores';
import { STORE_SECRETS_PREFIX_ENV } from '../secrets/fields';
import { SecretsManagerStoreSecrets } from '../secrets/store-secrets';
import { awsClientConfig } from './aws-clients';
import { requireEnv } from './env';

let secrets: SecretsManagerStoreSecrets | undefined;

/** The stores' own secrets; the prefix is read at the first use, so a function that never uses them needs none. */
export const storeSecrets: StoreSecrets = {
  create: (storeId, values) => instance().create(storeId, values),
  read: (storeId) => instance().read(storeId),
  write: (storeId, values) => instance().write(storeId, values),
};

function instance(): SecretsManagerStoreSecrets {
  return (secrets ??= new SecretsManagerStoreSecrets(
    requireEnv(STORE_SECRETS_PREFIX_ENV),
    awsClientConfig(),
  ));
}
