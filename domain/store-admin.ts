// Managing stores with the platform token: create, change, rotate tokens, disable and enable (issue 33).
import { ConflictError, NotFoundError } from './errors';
import { StoreCreates, type CreatedStore, type StoreCreateDeps } from './store-creates';
import {
  checkUrls,
  keysOf,
  withSettings,
  type NewStore,
  type StoreChanges,
  type UrlPolicy,
} from './store-settings';
import {
  DEFAULT_STORE_ID,
  secretLease,
  type SecretLease,
  type StoreId,
  type StoreRecord,
  type StoreStatus,
} from './stores';
import { issueTokens, type IssuedTokens } from './token-holders';

export type StoreAdminDeps = StoreCreateDeps & UrlPolicy;

/** A change that lost its compare-and-set this many times in a row answers 409 `in_progress`. */
const CHANGE_ATTEMPTS = 3;

export class StoreNotFoundError extends NotFoundError {
  override name = 'StoreNotFoundError';

  constructor() {
    super('The store', 'store_not_found');
  }
}

/** The default store's settings are the deployment's (its secrets and settings), not the registry's. */
export class DefaultStoreError extends ConflictError {
  override name = 'DefaultStoreError';

  constructor() {
    super('default_store', "The default store's settings belong to the deployment: see docs/operations.md");
  }
}

export class StoreAdmin {
  private readonly creates: StoreCreates;

  constructor(private readonly deps: StoreAdminDeps) {
    this.creates = new StoreCreates(deps);
  }

  /** The tokens and the webhook secret are answered here, once, and never again (domain/store-creates.ts). */
  async create(input: NewStore): Promise<CreatedStore> {
    checkUrls(input, this.deps);
    return this.creates.create(input);
  }

  /** A store whose create has not finished is not found: no request but its create's retry sees it. */
  async get(storeId: StoreId): Promise<StoreRecord> {
    const record = await this.deps.registry.get(storeId);
    if (!record || record.unfinished) throw new StoreNotFoundError();
    return record;
  }

  list(query: { limit: number; after?: { createdAt: number; id: StoreId } }) {
    return this.deps.registry.list(query);
  }

  /**
   * A change of keys writes the store's secret under a lease on the store item, before the item names its own
   * account, so two changes never mix one's base URL with the other's keys. An own account's keys may change only
   * to the same merchant account's (docs/architecture.md, "The account a record was claimed on").
   */
  async update(storeId: StoreId, changes: StoreChanges): Promise<StoreRecord> {
    if (storeId === DEFAULT_STORE_ID) throw new DefaultStoreError();
    checkUrls(changes, this.deps);
    const { processing } = changes;
    // A change without keys keeps another request's lease, if any: that request writes the keys, then ends it.
    if (!processing) return this.change(storeId, (record) => withSettings(record, changes));
    const { lease } = await this.takeKeysChange(storeId);
    try {
      const values = await this.deps.secrets.read(storeId);
      const webhookSecrets = values?.webhookSecrets ?? [this.deps.newWebhookSecret()];
      await this.deps.secrets.write(storeId, { processing: keysOf(processing), webhookSecrets });
      return await this.change(storeId, (record) => {
        if (record.keysChange?.version !== lease.version) throw keysChangeInProgress();
        const { keysChange: _ended, ...rest } = withSettings(record, changes);
        const movedFromShared = record.account === 'shared' ? this.deps.now() : record.movedFromShared;
        return {
          ...rest,
          account: 'own',
          baseUrl: processing.baseUrl,
          ...(movedFromShared !== undefined && { movedFromShared }),
        };
      });
    } catch (error) {
      await this.releaseKeysChange(storeId, lease);
      throw error;
    }
  }

  /**
   * New tokens, answered once; the ones they replace keep working for `graceSeconds`, then never. The new tokens'
   * items are written before the store item names them; the previous tokens of an earlier rotation end now.
   */
  async rotate(
    storeId: StoreId,
    graceSeconds: number,
  ): Promise<{ record: StoreRecord; tokens: IssuedTokens; previousExpireAt: number }> {
    const previousExpireAt = this.overlapEnd(storeId, graceSeconds);
    await this.get(storeId);
    const { tokens, hashes } = await issueTokens(this.deps, storeId);
    const record = await this.change(storeId, (current) => ({
      ...current,
      tokens: hashes,
      previousTokens: { ...current.tokens, expiresAt: previousExpireAt },
    }));
    return { record, tokens, previousExpireAt };
  }

  /**
   * A new webhook secret, answered once; the one it replaces signs beside it for `graceSeconds`, and an older one
   * stops. It takes the key change's lease on the secret, and the secret's write comes last, so one that surely
   * failed leaves the store as it was.
   */
  async rotateWebhookSecret(
    storeId: StoreId,
    graceSeconds: number,
  ): Promise<{ record: StoreRecord; webhookSecret: string; previousExpireAt: number }> {
    const previousExpireAt = this.overlapEnd(storeId, graceSeconds);
    let before: number | undefined;
    const { lease, record: held } = await this.takeKeysChange(storeId, (record) => {
      before = record.previousWebhookSecretExpiresAt;
      return { ...record, previousWebhookSecretExpiresAt: previousExpireAt };
    });
    const webhookSecret = this.deps.newWebhookSecret();
    let writing = false;
    try {
      const values = await this.deps.secrets.read(storeId);
      const [current] = values?.webhookSecrets ?? [];
      writing = true;
      await this.deps.secrets.write(storeId, {
        ...(values?.processing && { processing: values.processing }),
        webhookSecrets: current === undefined ? [webhookSecret] : [webhookSecret, current],
      });
    } catch (error) {
      const landed = writing ? await this.secretLeadsWith(storeId, webhookSecret) : false;
      if (landed !== true) {
        // Surely unwritten, the earlier end comes back; unknown, the new end stays, so the merchant's secret signs on.
        const restore = ({ previousWebhookSecretExpiresAt: _, ...record }: StoreRecord): StoreRecord => ({
          ...record,
          ...(before !== undefined && { previousWebhookSecretExpiresAt: before }),
        });
        await this.releaseKeysChange(storeId, lease, landed === false ? restore : undefined);
        throw error;
      }
    }
    const record = (await this.releaseKeysChange(storeId, lease)) ?? held;
    return { record, webhookSecret, previousExpireAt };
  }

  /** Idempotent: a store already in `status` is answered as it is. */
  setStatus(storeId: StoreId, status: StoreStatus): Promise<StoreRecord> {
    return this.change(storeId, (record) => ({ ...record, status }));
  }

  /** Reads the store, applies `edit`, and writes it over the version read; again when another change came first. */
  private async change(storeId: StoreId, edit: (record: StoreRecord) => StoreRecord): Promise<StoreRecord> {
    if (storeId === DEFAULT_STORE_ID) throw new DefaultStoreError();
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const current = await this.get(storeId);
      const next = { ...edit(current), updatedAt: this.deps.now(), version: current.version + 1 };
      if (await this.deps.registry.update(next)) return next;
    }
    throw new ConflictError('in_progress', 'Another change of this store came first; retry');
  }

  /**
   * The store's lease for a change of its secret, taken with a compare-and-set that also writes `edit`; 409
   * `in_progress` while another holds one.
   */
  private async takeKeysChange(
    storeId: StoreId,
    edit: (record: StoreRecord) => StoreRecord = (record) => record,
  ): Promise<{ lease: SecretLease; record: StoreRecord }> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const current = await this.get(storeId);
      if (current.keysChange && this.deps.now() < current.keysChange.until) throw keysChangeInProgress();
      const version = current.version + 1;
      const keysChange = secretLease(this.deps.now(), version);
      const record = { ...edit(current), updatedAt: this.deps.now(), version, keysChange };
      if (await this.deps.registry.update(record)) return { lease: keysChange, record };
    }
    throw new ConflictError('in_progress', 'Another change of this store came first; retry');
  }

  /**
   * Ends a lease this request holds, with `edit`, so that the next change need not wait it out; the store as
   * written. Best effort: a lease that cannot be ended here ends on its own.
   */
  private async releaseKeysChange(
    storeId: StoreId,
    lease: SecretLease,
    edit: (record: StoreRecord) => StoreRecord = (record) => record,
  ): Promise<StoreRecord | undefined> {
    try {
      const record = await this.get(storeId);
      if (record.keysChange?.version !== lease.version) return undefined;
      const { keysChange: _ended, ...rest } = edit(record);
      const next = { ...rest, updatedAt: this.deps.now(), version: record.version + 1 };
      return (await this.deps.registry.update(next)) ? next : undefined;
    } catch {
      // The caller's error, or its answer, is the one to give.
      return undefined;
    }
  }

  /**
   * Whether the store's secret now leads with `webhookSecret`, read back after a write that failed, as its answer
   * may be what was lost; undefined when it cannot be read.
   */
  private async secretLeadsWith(storeId: StoreId, webhookSecret: string): Promise<boolean | undefined> {
    try {
      return (await this.deps.secrets.read(storeId))?.webhookSecrets[0] === webhookSecret;
    } catch {
      return undefined;
    }
  }

  /** When what a rotation replaces stops working (epoch ms); the default store's belong to the deployment. */
  private overlapEnd(storeId: StoreId, graceSeconds: number): number {
    if (storeId === DEFAULT_STORE_ID) throw new DefaultStoreError();
    return this.deps.now() + graceSeconds * 1000;
  }
}

function keysChangeInProgress(): ConflictError {
  return new ConflictError(
    'in_progress',
    "Another change of this store's processing keys or webhook secret is under way; retry",
  );
}
