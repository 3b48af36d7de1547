// Managing stores with the platform token: create, change, rotate tokens, disable and enable (issue 33).
import { ConflictError, InvalidFieldsError, NotFoundError } from './errors';
import { isDigestOf, saltedDigest } from './hash';
import {
  DEFAULT_STORE_ID,
  type SecretLease,
  type StoreId,
  type StoreRecord,
  type StoreRegistry,
  type StoreSecrets,
  type StoreStatus,
  type TokenHashes,
  type TokenScope,
  type TravelRule,
} from './stores';

export interface StoreAdminDeps {
  /** Read for a change: never from a cache. */
  registry: StoreRegistry;
  secrets: StoreSecrets;
  /** 256 random bits, URL-safe. */
  newToken: () => string;
  /** `whsec_...` */
  newWebhookSecret: () => string;
  /** SHA-256 in hex: how a token is found and kept. */
  hashToken: (token: string) => string;
  /** Why a webhook or payment service URL may not be used (not https, credentials in it); undefined when it may. */
  urlRefusal: (url: string) => string | undefined;
  /** Whether this deployment's records make webhook events: without them, no store's endpoint would get any. */
  webhooksOn: boolean;
  now: () => number;
}

export interface OwnAccount {
  apiKey: string;
  secretKey: string;
  baseUrl: string;
}

export interface NewStore {
  id: StoreId;
  name: string;
  webhookUrl?: string;
  /** Absent: the store shares the deployment's processing account. */
  processing?: OwnAccount;
  /** Absent: DEFAULT_TRAVEL_RULE. */
  travelRule?: TravelRule;
  /** Absent: DEFAULT_TRAVEL_RULE_SENDER. */
  travelRuleSender?: TravelRule;
  /** Absent: the deployment's CLAIM_LINK_DAYS. */
  claimLinkDays?: number;
  /** Absent: the stage's limit. */
  requestsPerSecond?: number;
}

export interface StoreChanges {
  name?: string;
  /** null clears it. */
  webhookUrl?: string | null;
  processing?: OwnAccount;
  travelRule?: TravelRule;
  travelRuleSender?: TravelRule;
  /** null clears it: the deployment's CLAIM_LINK_DAYS applies again. */
  claimLinkDays?: number | null;
  /** null clears it: the stage's limit applies again. */
  requestsPerSecond?: number | null;
}

/** A store's tokens in clear, answered once: when made, and when rotated. */
export type IssuedTokens = Record<TokenScope, string>;

/**
 * How long a create or a change of keys holds the store's secret: over twice an API function's timeout (a test
 * holds it to lib/routes.ts), so that a holder's invocation has ended, and any write it sent has landed, before it.
 */
export const SECRET_LEASE_MS = 60_000;

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
  constructor(private readonly deps: StoreAdminDeps) {}

  /**
   * Claims the id with the store item, unfinished (its tokens' items first), then writes the store's secret, then
   * marks the item finished. The tokens and the webhook secret are answered here, once, and never again. A create
   * that failed before its finish is finished by the same body again, with fresh tokens (the first were never
   * answered); another body, or a finished store, is a 409 `store_exists`.
   */
  async create(
    input: NewStore,
  ): Promise<{ record: StoreRecord; tokens: IssuedTokens; webhookSecret: string }> {
    const { registry, now } = this.deps;
    this.checkUrls(input);
    if (input.id === DEFAULT_STORE_ID) throw storeExists();
    const existing = await registry.get(input.id);
    if (existing) return this.finishCreate(existing, input);
    const tokens = this.issueTokens();
    const hashes = await this.registerTokens(input.id, tokens);
    const at = now();
    const record: StoreRecord = {
      id: input.id,
      name: input.name,
      status: 'active',
      account: input.processing ? 'own' : 'shared',
      ...(input.processing && { baseUrl: input.processing.baseUrl }),
      ...(input.webhookUrl !== undefined && { webhookUrl: input.webhookUrl }),
      ...(input.travelRule !== undefined && { travelRule: input.travelRule }),
      ...(input.travelRuleSender !== undefined && { travelRuleSender: input.travelRuleSender }),
      ...(input.claimLinkDays !== undefined && { claimLinkDays: input.claimLinkDays }),
      ...(input.requestsPerSecond !== undefined && { requestsPerSecond: input.requestsPerSecond }),
      createdAt: at,
      updatedAt: at,
      version: 1,
      tokens: hashes,
      unfinished: { request: saltedDigest(createRequest(input)), ...this.lease(1) },
    };
    if (await registry.create(record)) return this.writeCreated(record, input, tokens);
    // Another create of this id came first: it is finished, under way, or failed and ours to finish.
    const winner = await registry.get(input.id);
    if (!winner) throw storeExists();
    return this.finishCreate(winner, input);
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
   * New keys go into the store's secret before the store item says it has its own account. A shared store may move
   * at any time: each order stays on the account it was claimed on (issue 40). An own account's keys may change,
   * but only for the same merchant account's.
   * A change of keys holds the store's secret with a lease on the store item first: the item and the secret are
   * each written by the one request that holds it, so two changes never leave one's base URL with the other's keys.
   */
  async update(storeId: StoreId, changes: StoreChanges): Promise<StoreRecord> {
    if (storeId === DEFAULT_STORE_ID) throw new DefaultStoreError();
    this.checkUrls({ webhookUrl: changes.webhookUrl ?? undefined, processing: changes.processing });
    const { processing } = changes;
    const settings = (record: StoreRecord): StoreRecord => {
      const { webhookUrl: _cleared, requestsPerSecond: _limit, claimLinkDays: _term, ...rest } = record;
      // A change of null clears the setting; one left out keeps it.
      const kept = <K extends 'webhookUrl' | 'requestsPerSecond' | 'claimLinkDays'>(key: K) =>
        changes[key] === undefined ? record[key] : (changes[key] ?? undefined);
      const webhookUrl = kept('webhookUrl');
      const requestsPerSecond = kept('requestsPerSecond');
      const claimLinkDays = kept('claimLinkDays');
      return {
        ...rest,
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.travelRule !== undefined && { travelRule: changes.travelRule }),
        ...(changes.travelRuleSender !== undefined && { travelRuleSender: changes.travelRuleSender }),
        ...(webhookUrl !== undefined && { webhookUrl }),
        ...(requestsPerSecond !== undefined && { requestsPerSecond }),
        ...(claimLinkDays !== undefined && { claimLinkDays }),
      };
    };
    // A change without keys keeps another request's lease, if any: that request writes the keys, then ends it.
    if (!processing) return this.change(storeId, settings);
    const { lease } = await this.takeKeysChange(storeId);
    try {
      const values = await this.deps.secrets.read(storeId);
      const webhookSecrets = values?.webhookSecrets ?? [this.deps.newWebhookSecret()];
      await this.deps.secrets.write(storeId, { processing: keysOf(processing), webhookSecrets });
      return await this.change(storeId, (record) => {
        if (record.keysChange?.version !== lease.version) throw keysChangeInProgress();
        const { keysChange: _ended, ...rest } = settings(record);
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
    const tokens = this.issueTokens();
    const hashes = await this.registerTokens(storeId, tokens);
    const record = await this.change(storeId, (current) => ({
      ...current,
      tokens: hashes,
      previousTokens: { ...current.tokens, expiresAt: previousExpireAt },
    }));
    return { record, tokens, previousExpireAt };
  }

  /**
   * A new webhook secret, answered once; the one it replaces signs beside it for `graceSeconds`, and one replaced
   * earlier stops now. It holds the store's secret with the lease a change of keys takes, so that neither writes
   * over the other's. The store item says when the current secret stops before the secret names a new one: the
   * secret's write alone completes the rotation, and one that surely failed leaves the store as it was.
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
   * Finishes a store left unfinished by a create of the same body whose lease has ended (it failed, or its
   * function stopped): the store is taken over with fresh tokens, then its secret is written as a first create's.
   */
  private async finishCreate(
    existing: StoreRecord,
    input: NewStore,
  ): Promise<{ record: StoreRecord; tokens: IssuedTokens; webhookSecret: string }> {
    const { unfinished } = existing;
    if (!unfinished || !isDigestOf(unfinished.request, createRequest(input))) throw storeExists();
    if (this.deps.now() < unfinished.until) throw createInProgress();
    const tokens = this.issueTokens();
    const hashes = await this.registerTokens(existing.id, tokens);
    const version = existing.version + 1;
    const taken: StoreRecord = {
      ...existing,
      tokens: hashes,
      updatedAt: this.deps.now(),
      version,
      unfinished: { ...unfinished, ...this.lease(version) },
    };
    if (!(await this.deps.registry.update(taken))) throw createInProgress();
    return this.writeCreated(taken, input, tokens);
  }

  /** Writes the secret of a store whose create holds its lease, then marks the store finished. */
  private async writeCreated(
    record: StoreRecord,
    input: NewStore,
    tokens: IssuedTokens,
  ): Promise<{ record: StoreRecord; tokens: IssuedTokens; webhookSecret: string }> {
    const webhookSecret = this.deps.newWebhookSecret();
    try {
      await this.deps.secrets.create(input.id, {
        ...(input.processing && { processing: keysOf(input.processing) }),
        webhookSecrets: [webhookSecret],
      });
    } catch (error) {
      // The lease ends now, so that the same create again finishes the store at once.
      const { unfinished } = record;
      if (unfinished) {
        const ended = { ...unfinished, until: 0 };
        await this.deps.registry
          .update({ ...record, version: record.version + 1, unfinished: ended })
          .catch(() => false);
      }
      throw error;
    }
    const { unfinished: _done, ...finished } = record;
    const next = { ...finished, updatedAt: this.deps.now(), version: record.version + 1 };
    // Its lease ended and another create took the store over: that one answers the tokens, this one must not.
    if (!(await this.deps.registry.update(next))) throw createInProgress();
    return { record: next, tokens, webhookSecret };
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
      const keysChange = this.lease(version);
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

  private lease(version: number): SecretLease {
    return { until: this.deps.now() + SECRET_LEASE_MS, version };
  }

  /** Refused before anything is written, each URL named as its field; the URL itself is never quoted. */
  private checkUrls({ webhookUrl, processing }: Pick<NewStore, 'webhookUrl' | 'processing'>): void {
    const refusals: Record<string, string> = {};
    const webhook = webhookUrl === undefined ? undefined : this.deps.urlRefusal(webhookUrl);
    if (webhook) refusals.webhook_url = `is refused: ${webhook}`;
    else if (webhookUrl !== undefined && !this.deps.webhooksOn) {
      refusals.webhook_url =
        "cannot be set: this deployment sends no webhooks (its stage's webhookUrl is not set)";
    }
    const base = processing && this.deps.urlRefusal(processing.baseUrl);
    if (base) refusals['processing.base_url'] = `is refused: ${base}`;
    if (Object.keys(refusals).length > 0) throw new InvalidFieldsError(refusals);
  }

  private issueTokens(): IssuedTokens {
    return { storefront: this.deps.newToken(), admin: this.deps.newToken() };
  }

  private async registerTokens(storeId: StoreId, tokens: IssuedTokens): Promise<TokenHashes> {
    const hashes = {
      storefront: this.deps.hashToken(tokens.storefront),
      admin: this.deps.hashToken(tokens.admin),
    };
    for (const scope of ['storefront', 'admin'] as const) {
      await this.deps.registry.addToken({ hash: hashes[scope], storeId, scope });
    }
    return hashes;
  }
}

function storeExists(): ConflictError {
  return new ConflictError('store_exists', 'A store with this id exists');
}

function keysChangeInProgress(): ConflictError {
  return new ConflictError(
    'in_progress',
    "Another change of this store's processing keys or webhook secret is under way; retry",
  );
}

function createInProgress(): ConflictError {
  return new ConflictError('in_progress', 'Another create of this store is under way; retry');
}

/** What tells a create's retry from another create: its body, the keys among it (kept only in a salted digest). */
function createRequest({
  id,
  name,
  webhookUrl,
  travelRule,
  travelRuleSender,
  claimLinkDays,
  requestsPerSecond,
  processing,
}: NewStore) {
  return {
    id,
    name,
    webhookUrl,
    travelRule,
    travelRuleSender,
    claimLinkDays,
    requestsPerSecond,
    ...processing,
  };
}

function keysOf({ apiKey, secretKey }: OwnAccount) {
  return { apiKey, secretKey };
}
