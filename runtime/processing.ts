import { createProcessingClient } from '../processing/client';
import { processingKeys } from '../secrets/plugin-secret';
import { numberEnv, requireEnv } from './env';
import { pluginSecret } from './secret';

export const processing = createProcessingClient({
  baseUrl: requireEnv('PROCESSING_BASE_URL'),
  keys: processingKeys(pluginSecret),
  connectTimeoutMs: numberEnv('PROCESSING_CONNECT_TIMEOUT_MS', 3000),
  headersTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
  bodyTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
});
