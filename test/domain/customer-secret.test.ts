import {
  customerSecretHash,
  customerSecretMatches,
  storeOfCustomerSecret,
} from '../../domain/customer-secret';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import { customerSecretIssuer } from '../../secrets/customer-secrets';

const keys = (secretKey: string) => {
  const held = { apiKey: 'api', secretKey };
  return { get: async () => held, refresh: async () => held };
};

test('a secret matches its hash only, whatever the length of what is given', () => {
  const stored = customerSecretHash('cs_right');
  expect(customerSecretMatches('cs_right', stored)).toBe(true);
  for (const given of ['cs_wrong', '', 'cs_righ', 'cs_right ', 'x'.repeat(10_000), undefined]) {
    expect(customerSecretMatches(given, stored)).toBe(false);
  }
  expect(customerSecretMatches('cs_right', undefined)).toBe(false);
  // A stored value that is not a digest's length never matches (and never throws in timingSafeEqual).
  expect(customerSecretMatches('cs_right', 'c2hvcnQ')).toBe(false);
});

test('the issued secret is the same for the same invoice, and another for another invoice or key', async () => {
  const issuer = customerSecretIssuer(keys('processing-secret'), DEFAULT_STORE_ID);
  const invoice = { foreignId: 'order-1', createdAt: 1_700_000_000_000 };
  const secret = await issuer.secretFor(invoice);
  expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
  expect(await issuer.secretFor({ ...invoice })).toBe(secret);
  expect(await issuer.secretFor({ ...invoice, createdAt: invoice.createdAt + 1 })).not.toBe(secret);
  expect(await issuer.secretFor({ ...invoice, foreignId: 'order-2' })).not.toBe(secret);
  expect(await customerSecretIssuer(keys('other-secret'), DEFAULT_STORE_ID).secretFor(invoice)).not.toBe(
    secret,
  );
  expect(secret).not.toContain('processing-secret');
});

test('after the processing secret changes, the same issuer derives secrets from the new one', async () => {
  let secretKey = 'processing-secret';
  const issuer = customerSecretIssuer(
    {
      get: async () => ({ apiKey: 'api', secretKey }),
      refresh: async () => ({ apiKey: 'api', secretKey }),
    },
    DEFAULT_STORE_ID,
  );
  const invoice = { foreignId: 'order-1', createdAt: 1_700_000_000_000 };
  const before = await issuer.secretFor(invoice);
  secretKey = 'rotated-secret';
  const after = await issuer.secretFor(invoice);
  expect(after).not.toBe(before);
  expect(after).toBe(await customerSecretIssuer(keys('rotated-secret'), DEFAULT_STORE_ID).secretFor(invoice));
});

test("another store's secret names the store; the default store's names none and keeps its form", async () => {
  const invoice = { foreignId: 'order-1', createdAt: 1_700_000_000_000 };
  const shared = keys('processing-secret');
  const secretA = await customerSecretIssuer(shared, DEFAULT_STORE_ID).secretFor(invoice);
  const secretB = await customerSecretIssuer(shared, 'shop-b').secretFor(invoice);
  const secretC = await customerSecretIssuer(shared, 'shop-c').secretFor(invoice);

  expect(secretA).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
  expect(secretB).toMatch(/^cs_shop-b![A-Za-z0-9_-]{43}$/);
  expect(storeOfCustomerSecret(secretA)).toBe('default');
  expect(storeOfCustomerSecret(secretB)).toBe('shop-b');
  // Stores sharing an account share no secret: the HMAC covers the store too.
  expect(secretC.slice('cs_shop-c!'.length)).not.toBe(secretB.slice('cs_shop-b!'.length));
  expect(secretB.slice('cs_shop-b!'.length)).not.toBe(secretA.slice('cs_'.length));
  // A secret given another store's name no longer matches the hash its invoice keeps.
  const forged = secretB.replace('shop-b', 'shop-c');
  expect(storeOfCustomerSecret(forged)).toBe('shop-c');
  expect(customerSecretMatches(forged, customerSecretHash(secretB))).toBe(false);
  for (const odd of [undefined, '', 'cs_', 'cs_!x', 'cs_Shop!x', 'x_shop-b!x']) {
    expect(storeOfCustomerSecret(odd)).toBe('default');
  }
});
