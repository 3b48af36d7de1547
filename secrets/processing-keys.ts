import type { ProcessingKeys } from '../domain/ports';
import { PROCESSING_KEY_FIELDS } from './fields';
import { readSecretFields } from './json-secret';

/** The processing keys secret: `processing_api_key` and `processing_secret_key`. */
export function parseProcessingKeys(text: string | undefined): ProcessingKeys {
  return readSecretFields('processing keys', text, PROCESSING_KEY_FIELDS);
}
