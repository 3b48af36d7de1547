import { cacheSecret, type CachedSecret } from '../secrets/cached-secret';
import { SECRET_ENV, type SecretName } from '../secrets/fields';
import { secretsManagerLoader } from '../secrets/secrets-manager';
import { awsClientConfig } from './aws-clients';
import { numberEnv, requireEnv } from './env';

/** How long a secret is cached, the deployment's and each store's alike. */
export const secretTtlMs = (): number => numberEnv('SECRET_TTL_SECONDS', 300) * 1000;

/** A secret the function may read, named by its environment variable, fetched once per SECRET_TTL_SECONDS. */
export function cachedSecret<T>(name: SecretName, parse: (text: string | undefined) => T): CachedSecret<T> {
  return cacheSecret(
    secretsManagerLoader(requireEnv(SECRET_ENV[name]), awsClientConfig()),
    parse,
    secretTtlMs(),
  );
}
