import { ProcessingAdapter } from '../processing/adapter';
import { ProcessingClient } from '../processing/client';
import { deadlineAt } from './deadline';
import { numberEnv, requireEnv } from './env';
import { processingKeys } from './processing-keys';

/** The payment service as the domain sees it, over one keep-alive client per process. */
export const processing = new ProcessingAdapter(
  new ProcessingClient({
    baseUrl: requireEnv('PROCESSING_BASE_URL'),
    keys: processingKeys,
    deadline: deadlineAt,
    connectTimeoutMs: numberEnv('PROCESSING_CONNECT_TIMEOUT_MS', 3000),
    headersTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
    bodyTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
  }),
);
