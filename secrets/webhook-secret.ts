import { WEBHOOK_SECRET_FIELDS } from './fields';
import { secretFields } from './json-secret';

/** The signing secrets, current first; a malformed one is refused by name, never shown. */
export function parseWebhookSecret(
  text: string | undefined,
  isWebhookSecret: (value: string) => boolean,
): string[] {
  const field = secretFields('webhook secrets', text);
  const current = field(WEBHOOK_SECRET_FIELDS.current, 'required');
  const previous = field(WEBHOOK_SECRET_FIELDS.previous);
  const secrets = previous === undefined ? [current] : [current, previous];
  if (!secrets.every(isWebhookSecret)) {
    throw new Error('The webhook secrets secret holds a value that is not whsec_ and base64');
  }
  return secrets;
}
