// Store management (domain/store-admin.ts) over the registry and the secrets in memory.
import { ConflictError, InvalidFieldsError } from '../../domain/errors';
import { DefaultStoreError, StoreAdmin, StoreNotFoundError } from '../../domain/store-admin';
import { MemorySecrets, MemoryStoreRegistry } from '../support/memory-stores';

function setup({ webhooksOn = true } = {}) {
  let now = 1_000;
  let serial = 0;
  const registry = new MemoryStoreRegistry();
  const secrets = new MemorySecrets();
  const admin = new StoreAdmin({
    registry,
    secrets,
    newToken: () => `token-${(serial += 1)}`,
    newWebhookSecret: () => `whsec_${(serial += 1)}`,
    hashToken: (token) => `hash(${token})`,
    urlRefusal: (url) => (url.startsWith('https://') ? undefined : 'not https'),
    webhooksOn,
    now: () => now,
  });
  return { registry, secrets, admin, advance: (ms: number) => (now += ms) };
}

test('a store is made with digests of its tokens in the registry, and its keys and webhook secret in its secret', async () => {
  const { registry, secrets, admin } = setup();
  const made = await admin.create({
    id: 'shop-a',
    name: 'A',
    processing: { apiKey: 'k', secretKey: 's', baseUrl: 'https://pay.test' },
  });
  expect(made.tokens).toEqual({ storefront: 'token-1', admin: 'token-2' });
  expect(made.record).toMatchObject({
    account: 'own',
    baseUrl: 'https://pay.test',
    tokens: { storefront: 'hash(token-1)', admin: 'hash(token-2)' },
    version: 1,
  });
  expect([...registry.owners.values()]).toEqual([
    { hash: 'hash(token-1)', storeId: 'shop-a', scope: 'storefront' },
    { hash: 'hash(token-2)', storeId: 'shop-a', scope: 'admin' },
  ]);
  expect(secrets.values.get('shop-a')).toEqual({
    processing: { apiKey: 'k', secretKey: 's' },
    webhookSecrets: [made.webhookSecret],
  });
  await expect(admin.create({ id: 'shop-a', name: 'Again' })).rejects.toMatchObject({ code: 'store_exists' });
  await expect(admin.create({ id: 'default', name: 'Default' })).rejects.toMatchObject({
    code: 'store_exists',
  });
});

test('a URL we may not send to is refused by field before anything is written', async () => {
  const { registry, secrets, admin } = setup();
  const refused = admin.create({
    id: 'shop-b',
    name: 'B',
    webhookUrl: 'http://b.test',
    processing: { apiKey: 'k', secretKey: 's', baseUrl: 'http://pay.test' },
  });
  await expect(refused).rejects.toBeInstanceOf(InvalidFieldsError);
  await expect(refused).rejects.toMatchObject({
    fields: { webhook_url: 'is refused: not https', 'processing.base_url': 'is refused: not https' },
  });
  expect(registry.stores.size + registry.owners.size + secrets.values.size).toBe(0);
});

test('a rotation keeps the previous tokens for the grace period; the next ends those before it at once', async () => {
  const { admin } = setup();
  await admin.create({ id: 'shop-c', name: 'C' });
  const first = await admin.rotate('shop-c', 60);
  expect(first.previousExpireAt).toBe(1_000 + 60_000);
  expect(first.record.previousTokens).toEqual({
    storefront: 'hash(token-1)',
    admin: 'hash(token-2)',
    expiresAt: 61_000,
  });
  const second = await admin.rotate('shop-c', 0);
  expect(second.record.previousTokens).toEqual({ ...first.record.tokens, expiresAt: 1_000 });
  expect(second.record.version).toBe(3);
});

test('a change keeps what it leaves out; new keys keep the webhook secret; null clears the webhook URL', async () => {
  const { secrets, admin } = setup();
  const made = await admin.create({ id: 'shop-d', name: 'D', webhookUrl: 'https://d.test/hooks' });
  const renamed = await admin.update('shop-d', { name: 'D2' });
  expect(renamed).toMatchObject({ name: 'D2', webhookUrl: 'https://d.test/hooks', account: 'shared' });
  const own = await admin.update('shop-d', {
    webhookUrl: null,
    processing: { apiKey: 'k2', secretKey: 's2', baseUrl: 'https://pay.test' },
  });
  expect(own).toMatchObject({ name: 'D2', account: 'own', baseUrl: 'https://pay.test' });
  expect(own.webhookUrl).toBeUndefined();
  expect(secrets.values.get('shop-d')).toEqual({
    processing: { apiKey: 'k2', secretKey: 's2' },
    webhookSecrets: [made.webhookSecret],
  });
});

test('status changes are idempotent; an unknown store is store_not_found; the default store is refused', async () => {
  const { admin } = setup();
  await admin.create({ id: 'shop-e', name: 'E' });
  expect((await admin.setStatus('shop-e', 'disabled')).status).toBe('disabled');
  expect((await admin.setStatus('shop-e', 'disabled')).status).toBe('disabled');
  expect((await admin.setStatus('shop-e', 'active')).status).toBe('active');
  await expect(admin.get('shop-none')).rejects.toBeInstanceOf(StoreNotFoundError);
  await expect(admin.setStatus('shop-none', 'active')).rejects.toMatchObject({ code: 'store_not_found' });
  for (const change of [
    admin.setStatus('default', 'disabled'),
    admin.rotate('default', 0),
    admin.update('default', { name: 'X' }),
  ]) {
    await expect(change).rejects.toBeInstanceOf(DefaultStoreError);
  }
});

test('a change that keeps losing its compare-and-set answers in_progress, and one that loses once is retried', async () => {
  const { registry, admin } = setup();
  await admin.create({ id: 'shop-f', name: 'F' });
  const update = registry.update.bind(registry);
  let losses = 1;
  registry.update = async (record) => (losses-- > 0 ? false : update(record));
  expect((await admin.update('shop-f', { name: 'F2' })).name).toBe('F2');
  registry.update = async () => false;
  const lost = admin.update('shop-f', { name: 'F3' });
  await expect(lost).rejects.toBeInstanceOf(ConflictError);
  await expect(lost).rejects.toMatchObject({ code: 'in_progress' });
});

test("a webhook URL is refused, naming the field, where the deployment's records make no webhook events", async () => {
  const { registry, secrets, admin } = setup({ webhooksOn: false });
  await expect(
    admin.create({ id: 'shop-w', name: 'W', webhookUrl: 'https://w.test/hooks' }),
  ).rejects.toMatchObject({
    fields: { webhook_url: expect.stringContaining('sends no webhooks') },
  });
  expect(await registry.get('shop-w')).toBeUndefined();
  expect(await secrets.read('shop-w')).toBeUndefined();
  await admin.create({ id: 'shop-w', name: 'W' });
  await expect(admin.update('shop-w', { webhookUrl: 'https://w.test/hooks' })).rejects.toMatchObject({
    fields: { webhook_url: expect.stringContaining('sends no webhooks') },
  });
  // Clearing it is always allowed.
  expect((await admin.update('shop-w', { webhookUrl: null })).webhookUrl).toBeUndefined();
});

test('a shared store is given its own account', async () => {
  const { secrets, admin } = setup();
  await admin.create({ id: 'shop-s', name: 'S' });
  const own = { processing: { apiKey: 'k', secretKey: 's', baseUrl: 'https://pay.test' } };
  expect(await admin.update('shop-s', own)).toMatchObject({ account: 'own', baseUrl: 'https://pay.test' });
  expect(secrets.values.get('shop-s')?.processing).toEqual({ apiKey: 'k', secretKey: 's' });
});

test("an own-account store may change its keys (the same merchant account's)", async () => {
  const { secrets, admin } = setup();
  await admin.create({
    id: 'shop-o',
    name: 'O',
    processing: { apiKey: 'k', secretKey: 's', baseUrl: 'https://pay.test' },
  });
  const keys = { processing: { apiKey: 'k2', secretKey: 's2', baseUrl: 'https://pay.test' } };
  expect(await admin.update('shop-o', keys)).toMatchObject({ account: 'own' });
  expect(secrets.values.get('shop-o')?.processing).toEqual({ apiKey: 'k2', secretKey: 's2' });
});
