import type { ClientSecrets } from '../domain/ports';
import { clientSecretIssuer } from '../secrets/client-secrets';
import { processingKeys } from './processing-keys';

/** From the processing keys the checkout already holds: no secret read of its own. */
export const clientSecrets: ClientSecrets = clientSecretIssuer(processingKeys);
