// Store management (domain/store-admin.ts, domain/store-creates.ts, domain/store-settings.ts) over the registry and
// the secrets in memory.
import { ConflictError, InvalidFieldsError } from '../../domain/errors';
import { DefaultStoreError, StoreAdmin, StoreNotFoundError } from '../../domain/store-admin';
import { acceptsToken, SECRET_LEASE_MS, signingSecrets } from '../../domain/stores';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../../lib/routes';
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
    // Written unfinished, then finished once its secret is.
    version: 2,
  });
  expect(made.record.unfinished).toBeUndefined();
  expect(registry.stores.get('shop-a')).toEqual(made.record);
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
  expect(second.record.version).toBe(4);
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

test('a shared store is given its own account, and says when it left the shared one', async () => {
  const { secrets, admin, advance } = setup();
  const created = await admin.create({ id: 'shop-s', name: 'S' });
  expect(created.record.movedFromShared).toBeUndefined();
  const own = { processing: { apiKey: 'k', secretKey: 's', baseUrl: 'https://pay.test' } };
  const moved = await admin.update('shop-s', own);
  expect(moved).toMatchObject({
    account: 'own',
    baseUrl: 'https://pay.test',
    movedFromShared: expect.any(Number),
  });
  expect(secrets.values.get('shop-s')?.processing).toEqual({ apiKey: 'k', secretKey: 's' });
  // New keys later keep the time of the move: the store's orders from before pinning stay shared.
  advance(1_000);
  const rekeyed = await admin.update('shop-s', { processing: { ...own.processing, apiKey: 'k2' } });
  expect(rekeyed.movedFromShared).toBe(moved.movedFromShared);
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

/** A promise settled from outside, as a secret write that waits until the test lets it land. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const keys = (n: number) => ({
  apiKey: `api-${n}`,
  secretKey: `secret-${n}`,
  baseUrl: `https://pay-${n}.test`,
});

describe('a change of keys holds the store', () => {
  test("the lease outlives the function that took it: over twice an API function's timeout", () => {
    expect(SECRET_LEASE_MS).toBeGreaterThan(2 * API_FUNCTION_TIMEOUT_SECONDS * 1000);
  });

  test('while one is under way another answers in_progress and writes nothing; a change without keys goes on', async () => {
    const { registry, secrets, admin } = setup();
    await admin.create({ id: 'shop-k', name: 'K', processing: keys(1) });
    const write = secrets.write.bind(secrets);
    const held = gate();
    secrets.write = async (storeId, values) => {
      await held.opened;
      return write(storeId, values);
    };
    const first = admin.update('shop-k', { processing: keys(2) });
    await new Promise((resolve) => setImmediate(resolve));
    const marked = registry.stores.get('shop-k')!;
    expect(marked.keysChange).toEqual({ until: 1_000 + SECRET_LEASE_MS, version: marked.version });

    secrets.write = write;
    const second = admin.update('shop-k', { name: 'K3', processing: keys(3) });
    await expect(second).rejects.toBeInstanceOf(ConflictError);
    await expect(second).rejects.toMatchObject({ code: 'in_progress' });
    expect(registry.stores.get('shop-k')).toBe(marked);
    expect(secrets.values.get('shop-k')?.processing).toEqual({ apiKey: 'api-1', secretKey: 'secret-1' });

    // A rename meanwhile keeps the lease: the first change still ends it.
    const renamed = await admin.update('shop-k', { name: 'K2' });
    expect(renamed.keysChange).toEqual(marked.keysChange);

    held.open();
    const changed = await first;
    expect(changed).toMatchObject({ name: 'K2', account: 'own', baseUrl: 'https://pay-2.test' });
    expect(changed.keysChange).toBeUndefined();
    expect(registry.stores.get('shop-k')).toEqual(changed);
    expect(secrets.values.get('shop-k')?.processing).toEqual({ apiKey: 'api-2', secretKey: 'secret-2' });
    // The next change of keys takes the store at once.
    expect((await admin.update('shop-k', { processing: keys(3) })).baseUrl).toBe('https://pay-3.test');
  });

  test('a lease left by a change that stopped ends on its own, and the same change then completes', async () => {
    const { registry, secrets, admin, advance } = setup();
    await admin.create({ id: 'shop-l', name: 'L', processing: keys(1) });
    // As a function stopped after its secret write leaves it: the new keys in the secret, the item's URL the old.
    const left = registry.stores.get('shop-l')!;
    registry.stores.set('shop-l', {
      ...left,
      version: left.version + 1,
      keysChange: { until: 1_000 + SECRET_LEASE_MS, version: left.version + 1 },
    });
    await secrets.write('shop-l', { ...secrets.values.get('shop-l')!, processing: keys(2) });
    await expect(admin.update('shop-l', { processing: keys(2) })).rejects.toMatchObject({
      code: 'in_progress',
    });
    advance(SECRET_LEASE_MS);
    const changed = await admin.update('shop-l', { processing: keys(2) });
    expect(changed).toMatchObject({ baseUrl: 'https://pay-2.test' });
    expect(changed.keysChange).toBeUndefined();
    expect(secrets.values.get('shop-l')?.processing).toEqual({ apiKey: 'api-2', secretKey: 'secret-2' });
  });

  test('a change whose secret write fails ends its lease: its retry goes through at once', async () => {
    const { registry, secrets, admin } = setup();
    await admin.create({ id: 'shop-m', name: 'M', processing: keys(1) });
    const before = registry.stores.get('shop-m')!;
    const write = secrets.write.bind(secrets);
    secrets.write = async () => {
      throw new Error('Secrets Manager is out of reach');
    };
    await expect(admin.update('shop-m', { processing: keys(2) })).rejects.toThrow('out of reach');
    expect(registry.stores.get('shop-m')).toMatchObject({
      baseUrl: before.baseUrl,
      updatedAt: before.updatedAt,
    });
    expect(registry.stores.get('shop-m')?.keysChange).toBeUndefined();
    secrets.write = write;
    expect((await admin.update('shop-m', { processing: keys(2) })).baseUrl).toBe('https://pay-2.test');
  });

  test('a holder whose lease ended and was taken over does not name its keys', async () => {
    const { registry, secrets, admin, advance } = setup();
    await admin.create({ id: 'shop-n', name: 'N', processing: keys(1) });
    const write = secrets.write.bind(secrets);
    const held = gate();
    // Its secret write lands, then its function stalls past its lease.
    secrets.write = async (storeId, values) => {
      await write(storeId, values);
      if (values.processing?.apiKey === 'api-2') await held.opened;
    };
    const slow = admin.update('shop-n', { processing: keys(2) });
    await new Promise((resolve) => setImmediate(resolve));
    advance(SECRET_LEASE_MS);
    expect((await admin.update('shop-n', { processing: keys(3) })).baseUrl).toBe('https://pay-3.test');
    held.open();
    await expect(slow).rejects.toMatchObject({ code: 'in_progress' });
    expect(registry.stores.get('shop-n')).toMatchObject({ baseUrl: 'https://pay-3.test' });
    expect(registry.stores.get('shop-n')?.keysChange).toBeUndefined();
    expect(secrets.values.get('shop-n')?.processing?.apiKey).toBe('api-3');
  });
});

describe('a create that failed before its secret was written', () => {
  const body = { id: 'shop-r', name: 'R', webhookUrl: 'https://r.test/hooks', processing: keys(1) };

  /** A create whose secret write fails once. */
  async function failedOnce() {
    const rig = setup();
    const create = rig.secrets.create.bind(rig.secrets);
    rig.secrets.create = async () => {
      rig.secrets.create = create;
      throw new Error('Secrets Manager is out of reach');
    };
    await expect(rig.admin.create(body)).rejects.toThrow('out of reach');
    return rig;
  }

  test('leaves a store no route finds, not listed, its tokens refused, and no key in its item', async () => {
    const { registry, secrets, admin } = await failedOnce();
    const left = registry.stores.get('shop-r')!;
    expect(left.unfinished).toMatchObject({
      until: 0,
      request: expect.stringMatching(/^[0-9a-f]+:[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(left)).not.toMatch(/api-1|secret-1/);
    expect(secrets.values.has('shop-r')).toBe(false);
    await expect(admin.get('shop-r')).rejects.toBeInstanceOf(StoreNotFoundError);
    for (const change of [
      admin.update('shop-r', { name: 'X' }),
      admin.update('shop-r', { processing: keys(2) }),
      admin.rotate('shop-r', 0),
      admin.setStatus('shop-r', 'disabled'),
    ]) {
      await expect(change).rejects.toBeInstanceOf(StoreNotFoundError);
    }
    expect((await admin.list({ limit: 10 })).records).toEqual([]);
    expect(acceptsToken(left, 'admin', left.tokens.admin, 1_000)).toBe(false);
    expect(registry.stores.get('shop-r')).toBe(left);
  });

  test('the same body again finishes it with fresh tokens; another body, or again after that, is store_exists', async () => {
    const { registry, secrets, admin } = await failedOnce();
    const left = registry.stores.get('shop-r')!;
    await expect(admin.create({ ...body, name: 'Another' })).rejects.toMatchObject({ code: 'store_exists' });
    await expect(
      admin.create({ ...body, processing: { ...keys(1), secretKey: 'secret-other' } }),
    ).rejects.toMatchObject({ code: 'store_exists' });
    expect(registry.stores.get('shop-r')).toBe(left);

    // The same body with its keys in another order is the same request.
    const { id, name, webhookUrl, processing } = body;
    const made = await admin.create({ processing, webhookUrl, name, id });
    // The first create's tokens and webhook secret took 1 to 3.
    expect(made.tokens).toEqual({ storefront: 'token-4', admin: 'token-5' });
    expect(made.record).toMatchObject({
      account: 'own',
      baseUrl: 'https://pay-1.test',
      webhookUrl: 'https://r.test/hooks',
      tokens: { storefront: 'hash(token-4)', admin: 'hash(token-5)' },
    });
    expect(made.record.unfinished).toBeUndefined();
    expect(registry.stores.get('shop-r')).toEqual(made.record);
    expect(acceptsToken(made.record, 'admin', 'hash(token-5)', 1_000)).toBe(true);
    expect(acceptsToken(made.record, 'admin', 'hash(token-2)', 1_000)).toBe(false);
    expect(secrets.values.get('shop-r')).toEqual({
      processing: { apiKey: 'api-1', secretKey: 'secret-1' },
      webhookSecrets: [made.webhookSecret],
    });
    expect((await admin.get('shop-r')).id).toBe('shop-r');
    expect((await admin.list({ limit: 10 })).records.map((record) => record.id)).toEqual(['shop-r']);
    await expect(admin.create(body)).rejects.toMatchObject({ code: 'store_exists' });
  });

  test('while a create of the id holds its lease, the same body again answers in_progress; after it, finishes', async () => {
    const { registry, secrets, admin, advance } = setup();
    const create = secrets.create.bind(secrets);
    const held = gate();
    secrets.create = async (storeId, values) => {
      await held.opened;
      return create(storeId, values);
    };
    const first = admin.create(body);
    await new Promise((resolve) => setImmediate(resolve));
    secrets.create = create;
    await expect(admin.create(body)).rejects.toMatchObject({ code: 'in_progress' });
    // The first create's function stopped: its lease ends, and the retry takes the store over.
    advance(SECRET_LEASE_MS);
    const retried = await admin.create(body);
    expect(registry.stores.get('shop-r')).toEqual(retried.record);
    held.open();
    await expect(first).rejects.toMatchObject({ code: 'in_progress' });
    expect(registry.stores.get('shop-r')).toEqual(retried.record);
  });
});

describe('a webhook secret rotation holds the store as a change of keys does', () => {
  test('a change of keys under way refuses it with in_progress, and it refuses one; both land, one at a time', async () => {
    const { registry, secrets, admin } = setup();
    const made = await admin.create({ id: 'shop-h', name: 'H', processing: keys(1) });
    const write = secrets.write.bind(secrets);
    let held = gate();
    secrets.write = async (storeId, values) => {
      await held.opened;
      return write(storeId, values);
    };
    const change = admin.update('shop-h', { processing: keys(2) });
    await new Promise((resolve) => setImmediate(resolve));
    const marked = registry.stores.get('shop-h')!;
    await expect(admin.rotateWebhookSecret('shop-h', 60)).rejects.toMatchObject({ code: 'in_progress' });
    expect(registry.stores.get('shop-h')).toBe(marked);
    held.open();
    await change;

    held = gate();
    const rotation = admin.rotateWebhookSecret('shop-h', 60);
    await new Promise((resolve) => setImmediate(resolve));
    const rotating = registry.stores.get('shop-h')!;
    await expect(admin.update('shop-h', { processing: keys(3) })).rejects.toMatchObject({
      code: 'in_progress',
    });
    expect(registry.stores.get('shop-h')).toBe(rotating);
    held.open();
    const rotated = await rotation;
    expect(rotated.record.keysChange).toBeUndefined();
    expect(registry.stores.get('shop-h')).toEqual(rotated.record);
    expect(secrets.values.get('shop-h')).toEqual({
      processing: { apiKey: 'api-2', secretKey: 'secret-2' },
      webhookSecrets: [rotated.webhookSecret, made.webhookSecret],
    });
  });

  test('a failure at any step leaves a secret the merchant knows signing, and a retry completes it', async () => {
    // Each step in turn fails once, after a first rotation whose overlap has ended.
    for (const step of ['secret read', 'secret write', 'lost answer', 'store write after'] as const) {
      const { registry, secrets, admin, advance } = setup();
      await admin.create({ id: 'shop-f', name: 'F' });
      const known = (await admin.rotateWebhookSecret('shop-f', 0)).webhookSecret;
      advance(1_000);
      const before = registry.stores.get('shop-f')!;
      const { read, write } = { read: secrets.read.bind(secrets), write: secrets.write.bind(secrets) };
      const update = registry.update.bind(registry);
      const outOfReach = () => {
        throw new Error('out of reach');
      };
      let written = false;
      if (step === 'secret read') secrets.read = async () => outOfReach();
      if (step === 'secret write') secrets.write = async () => outOfReach();
      if (step === 'lost answer' || step === 'store write after') {
        secrets.write = async (storeId, values) => {
          await write(storeId, values);
          written = true;
          if (step === 'lost answer') outOfReach();
        };
        registry.update = async (record) =>
          written && step === 'store write after' ? outOfReach() : update(record);
      }
      const answer = await admin.rotateWebhookSecret('shop-f', 60).then(
        (rotated) => rotated.webhookSecret,
        () => undefined,
      );
      Object.assign(secrets, { read, write });
      registry.update = update;
      const record = registry.stores.get('shop-f')!;
      const signing = signingSecrets(record, secrets.values.get('shop-f')!.webhookSecrets, 2_000);
      // The one answered, or if none was, the one the merchant had.
      expect({ step, signs: signing.includes(answer ?? known) }).toEqual({ step, signs: true });
      if (answer === undefined) {
        expect({ step, record: { ...record, version: 0, updatedAt: 0 } }).toEqual({
          step,
          record: { ...before, version: 0, updatedAt: 0 },
        });
      }
      // A lease this rotation could not end ends on its own.
      if (record.keysChange) advance(SECRET_LEASE_MS);
      const retried = await admin.rotateWebhookSecret('shop-f', 60);
      expect({ step, secrets: secrets.values.get('shop-f')!.webhookSecrets }).toEqual({
        step,
        secrets: [retried.webhookSecret, answer ?? known],
      });
      expect(registry.stores.get('shop-f')).toMatchObject({
        previousWebhookSecretExpiresAt: advance(0) + 60_000,
      });
    }
  });
});
