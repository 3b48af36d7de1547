import { CachedSecret } from '../secrets/plugin-secret';
import { secretsManagerLoader } from '../secrets/secrets-manager';
import { numberEnv, requireEnv } from './env';

/** The plugin secret, fetched once per container and kept for SECRET_TTL_SECONDS. */
export const pluginSecret = new CachedSecret(
  secretsManagerLoader(requireEnv('SECRET_ID')),
  numberEnv('SECRET_TTL_SECONDS', 300) * 1000,
);
