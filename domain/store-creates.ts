// Creating a store once: the store item claims the id, unfinished, then the store's secret is written under its
// lease, then the item is marked finished; a create that failed before then is finished by the same body again.
import { ConflictError } from './errors';
import { isDigestOf, saltedDigest } from './hash';
import { keysOf, withSettings, type NewStore } from './store-settings';
import { DEFAULT_STORE_ID, secretLease, type StoreRecord, type StoreSecrets } from './stores';
import { issueTokens, type IssuedTokens, type TokenIssuing } from './token-holders';

export interface StoreCreateDeps extends TokenIssuing {
  secrets: StoreSecrets;
  /** `whsec_...` */
  newWebhookSecret: () => string;
  now: () => number;
}

/** A made store, with its tokens and webhook secret in clear: answered here, once, and never again. */
export interface CreatedStore {
  record: StoreRecord;
  tokens: IssuedTokens;
  webhookSecret: string;
}

export class StoreCreates {
  constructor(private readonly deps: StoreCreateDeps) {}

  /**
   * Claims the id with the store item, unfinished (its tokens' items first), then writes the store's secret, then
   * marks the item finished. A create that failed before its finish is finished by the same body again, with fresh
   * tokens (the first were never answered); another body, or a finished store, is a 409 `store_exists`.
   */
  async create(input: NewStore): Promise<CreatedStore> {
    const { registry, now } = this.deps;
    if (input.id === DEFAULT_STORE_ID) throw storeExists();
    const existing = await registry.get(input.id);
    if (existing) return this.finish(existing, input);
    const { tokens, hashes } = await issueTokens(this.deps, input.id);
    const at = now();
    const record = withSettings(
      {
        id: input.id,
        name: input.name,
        status: 'active',
        account: input.processing ? 'own' : 'shared',
        ...(input.processing && { baseUrl: input.processing.baseUrl }),
        createdAt: at,
        updatedAt: at,
        version: 1,
        tokens: hashes,
        unfinished: { request: saltedDigest(createRequest(input)), ...secretLease(at, 1) },
      },
      input,
    );
    if (await registry.create(record)) return this.writeCreated(record, input, tokens);
    // Another create of this id came first: it is finished, under way, or failed and ours to finish.
    const winner = await registry.get(input.id);
    if (!winner) throw storeExists();
    return this.finish(winner, input);
  }

  /**
   * Finishes a store left unfinished by a create of the same body whose lease has ended (it failed, or its
   * function stopped): the store is taken over with fresh tokens, then its secret is written as a first create's.
   */
  private async finish(existing: StoreRecord, input: NewStore): Promise<CreatedStore> {
    const { unfinished } = existing;
    if (!unfinished || !isDigestOf(unfinished.request, createRequest(input))) throw storeExists();
    if (this.deps.now() < unfinished.until) throw createInProgress();
    const { tokens, hashes } = await issueTokens(this.deps, existing.id);
    const version = existing.version + 1;
    const at = this.deps.now();
    const taken: StoreRecord = {
      ...existing,
      tokens: hashes,
      updatedAt: at,
      version,
      unfinished: { ...unfinished, ...secretLease(at, version) },
    };
    if (!(await this.deps.registry.update(taken))) throw createInProgress();
    return this.writeCreated(taken, input, tokens);
  }

  /** Writes the secret of a store whose create holds its lease, then marks the store finished. */
  private async writeCreated(
    record: StoreRecord,
    input: NewStore,
    tokens: IssuedTokens,
  ): Promise<CreatedStore> {
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
}

function storeExists(): ConflictError {
  return new ConflictError('store_exists', 'A store with this id exists');
}

function createInProgress(): ConflictError {
  return new ConflictError('in_progress', 'Another create of this store is under way; retry');
}

/** What tells a create's retry from another create: its body, the keys among it (kept only in a salted digest). */
function createRequest({ processing, ...settings }: NewStore) {
  return { ...settings, ...processing };
}
