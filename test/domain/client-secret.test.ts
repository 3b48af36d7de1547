import { clientSecretHash, clientSecretMatches } from '../../domain/client-secret';
import { clientSecretIssuer } from '../../secrets/client-secrets';

const keys = (secretKey: string) => {
  const held = { apiKey: 'api', secretKey };
  return { get: async () => held, refresh: async () => held };
};

test('a secret matches its hash only, whatever the length of what is given', () => {
  const stored = clientSecretHash('cs_right');
  expect(clientSecretMatches('cs_right', stored)).toBe(true);
  for (const given of ['cs_wrong', '', 'cs_righ', 'cs_right ', 'x'.repeat(10_000), undefined]) {
    expect(clientSecretMatches(given, stored)).toBe(false);
  }
  expect(clientSecretMatches('cs_right', undefined)).toBe(false);
  // A stored value that is not a digest's length never matches (and never throws in timingSafeEqual).
  expect(clientSecretMatches('cs_right', 'c2hvcnQ')).toBe(false);
});

test('the issued secret is the same for the same invoice, and another for another invoice or key', async () => {
  const issuer = clientSecretIssuer(keys('processing-secret'));
  const invoice = { foreignId: 'order-1', createdAt: 1_700_000_000_000 };
  const secret = await issuer.secretFor(invoice);
  expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
  expect(await issuer.secretFor({ ...invoice })).toBe(secret);
  expect(await issuer.secretFor({ ...invoice, createdAt: invoice.createdAt + 1 })).not.toBe(secret);
  expect(await issuer.secretFor({ ...invoice, foreignId: 'order-2' })).not.toBe(secret);
  expect(await clientSecretIssuer(keys('other-secret')).secretFor(invoice)).not.toBe(secret);
  expect(secret).not.toContain('processing-secret');
});

test('after the processing secret changes, the same issuer derives secrets from the new one', async () => {
  let secretKey = 'processing-secret';
  const issuer = clientSecretIssuer({
    get: async () => ({ apiKey: 'api', secretKey }),
    refresh: async () => ({ apiKey: 'api', secretKey }),
  });
  const invoice = { foreignId: 'order-1', createdAt: 1_700_000_000_000 };
  const before = await issuer.secretFor(invoice);
  secretKey = 'rotated-secret';
  const after = await issuer.secretFor(invoice);
  expect(after).not.toBe(before);
  expect(after).toBe(await clientSecretIssuer(keys('rotated-secret')).secretFor(invoice));
});

describe('a secret readied for an invoice about to be created', () => {
  const invoice = { foreignId: 'order-1', createdAt: 1_700_000_000_000 };
  const afterIo = () => new Promise((resolve) => setImmediate(resolve));

  function issuerOf(initial: string) {
    const source = { secretKey: initial, reads: 0 };
    const read = async () => {
      source.reads += 1;
      return { apiKey: 'api', secretKey: source.secretKey };
    };
    return { source, issuer: clientSecretIssuer({ get: read, refresh: read }) };
  }

  test('is made while I/O is awaited, with no key read, and issued as the same secret with its hash', async () => {
    const { source, issuer } = issuerOf('processing-secret');
    const expected = await issuer.secretFor(invoice);
    const hash = jest.fn(clientSecretHash);

    const prepared = issuer.prepare(invoice, hash);
    await afterIo();
    expect(hash).toHaveBeenCalledTimes(1);
    expect(source.reads).toBe(1);

    await expect(prepared.issue()).resolves.toEqual({ secret: expected, hash: clientSecretHash(expected) });
    expect(hash).toHaveBeenCalledTimes(1);
    expect(source.reads).toBe(2);
  });

  test('is made again under the new key when the keys change before it is issued', async () => {
    const { source, issuer } = issuerOf('processing-secret');
    await issuer.secretFor(invoice);
    const prepared = issuer.prepare(invoice, clientSecretHash);
    await afterIo();
    source.secretKey = 'rotated-secret';

    const { secret } = await prepared.issue();
    expect(secret).toBe(await clientSecretIssuer(keys('rotated-secret')).secretFor(invoice));
  });

  test('is made when issued if no key was in hand to make it before', async () => {
    const { source, issuer } = issuerOf('processing-secret');
    const hash = jest.fn(clientSecretHash);
    const prepared = issuer.prepare(invoice, hash);
    await afterIo();
    expect(hash).not.toHaveBeenCalled();
    expect(source.reads).toBe(0);

    const { secret } = await prepared.issue();
    expect(secret).toBe(await clientSecretIssuer(keys('processing-secret')).secretFor(invoice));
  });
});
