import type { KeySource } from '../domain/ports';
import { parseProcessingKeys } from '../secrets/processing-keys';
import { cachedSecret } from './secret';

/** Only the functions that call the service or verify its callbacks load this module, and only they may read it. */
export const processingKeys: KeySource = cachedSecret('processingKeys', parseProcessingKeys);
