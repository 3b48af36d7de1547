import type { ProcessingKeys } from '../domain/ports';
import { PROCESSING_KEY_FIELDS } from './fields';
import { secretFields } from './json-secret';

/** The processing keys secret: `processing_api_key` and `processing_secret_key`. */
export function parseProcessingKeys(text: string | undefined): ProcessingKeys {
  const field = secretFields('processing keys', text);
  return {
    apiKey: field(PROCESSING_KEY_FIELDS.apiKey, 'required'),
    secretKey: field(PROCESSING_KEY_FIELDS.secretKey, 'required'),
  };
}
