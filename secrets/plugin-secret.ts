import { NotConfiguredError } from '../domain/errors';
import type { KeySource } from '../domain/ports';
import { PROCESSING_KEY_PLACEHOLDER, SECRET_FIELDS } from '../lib/secret-keys';

/** The one secret: processing keys and the two bearer tokens. */
export interface PluginSecret {
  processingApiKey: string;
  processingSecretKey: string;
  storefrontToken: string;
  adminToken: string;
}

/** Parses the secret's JSON; an error names the missing field, never a value. */
export function parsePluginSecret(text: string): PluginSecret {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error('The plugin secret is not valid JSON');
  }
  const secret = {} as PluginSecret;
  for (const [name, field] of Object.entries(SECRET_FIELDS) as Array<[keyof PluginSecret, string]>) {
    const value = raw[field];
    if (typeof value !== 'string' || value === '') throw new Error(`The plugin secret has no "${field}"`);
    secret[name] = value;
  }
  return secret;
}

/** Fetches the secret once and keeps it for `ttlMs`; concurrent callers share one fetch. */
export class CachedSecret {
  private value?: { secret: PluginSecret; fetchedAt: number };
  private inFlight?: Promise<PluginSecret>;

  constructor(
    private readonly load: () => Promise<string>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** Refreshes come from rejected keys or signatures; this keeps a flood of them from hammering the source. */
    private readonly minRefreshMs = 1_000,
  ) {}

  get(): Promise<PluginSecret> {
    if (this.value && this.now() - this.value.fetchedAt < this.ttlMs)
      return Promise.resolve(this.value.secret);
    return this.fetch();
  }

  refresh(): Promise<PluginSecret> {
    if (this.value && this.now() - this.value.fetchedAt < this.minRefreshMs) {
      return Promise.resolve(this.value.secret);
    }
    return this.fetch();
  }

  private fetch(): Promise<PluginSecret> {
    this.inFlight ??= this.load()
      .then((text) => {
        const secret = parsePluginSecret(text);
        this.value = { secret, fetchedAt: this.now() };
        return secret;
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}

export function processingKeys(secret: CachedSecret): KeySource {
  const keys = ({ processingApiKey, processingSecretKey }: PluginSecret) => {
    if (
      processingApiKey === PROCESSING_KEY_PLACEHOLDER ||
      processingSecretKey === PROCESSING_KEY_PLACEHOLDER
    ) {
      throw new NotConfiguredError('The processing keys in the plugin secret have not been set yet');
    }
    return { apiKey: processingApiKey, secretKey: processingSecretKey };
  };
  return {
    get: async () => keys(await secret.get()),
    refresh: async () => keys(await secret.refresh()),
  };
}
