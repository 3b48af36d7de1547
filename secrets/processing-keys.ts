import type { ProcessingKeys } from '../domain/ports';
import { PROCESSING_KEY_FIELDS } from './fields';
import { SecretFields } from './json-secret';

/** The processing keys secret: `processing_api_key` and `processing_secret_key`. */
export function parseProcessingKeys(text: string | undefined): ProcessingKeys {
  const fields = new SecretFields('processing keys', text);
  return {
    apiKey: fields.required(PROCESSING_KEY_FIELDS.apiKey),
    secretKey: fields.required(PROCESSING_KEY_FIELDS.secretKey),
  };
}
