import { signingSecrets, type StoreRecord } from '../../domain/stores';

const record = (previousWebhookSecretExpiresAt?: number) =>
  ({
    id: 'shop',
    ...(previousWebhookSecretExpiresAt !== undefined && { previousWebhookSecretExpiresAt }),
  }) as StoreRecord;

test('the previous webhook secret signs beside the new one until its overlap ends, then the new one alone', () => {
  const secrets = ['whsec_new', 'whsec_old'];
  expect(signingSecrets(record(2_000), secrets, 1_999)).toEqual(secrets);
  expect(signingSecrets(record(2_000), secrets, 2_000)).toEqual(['whsec_new']);
  expect(signingSecrets(record(2_000), ['whsec_new'], 1_000)).toEqual(['whsec_new']);
  // A previous secret an operator put in the secret by hand, with no rotation's end, signs as before.
  expect(signingSecrets(record(), secrets, 5_000)).toEqual(secrets);
});
