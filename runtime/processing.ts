import { createProcessingClient } from '../processing/client';
import { numberEnv, requireEnv } from './env';
import { processingKeys } from './processing-keys';

export const processing = createProcessingClient({
  baseUrl: requireEnv('PROCESSING_BASE_URL'),
  keys: processingKeys,
  connectTimeoutMs: numberEnv('PROCESSING_CONNECT_TIMEOUT_MS', 3000),
  headersTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
  bodyTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
});
