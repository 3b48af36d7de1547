import type { StoreWebhookSenders, WebhookSender } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreAccounts, type StoreId } from '../domain/stores';
import { endpointRefusal, HttpWebhookSender } from './sender';

export interface StoreSendersOptions {
  /** Plain http to 127.0.0.1 is allowed (the local stack). */
  allowLoopbackHttp: boolean;
  now: () => number;
}

/**
 * Each store's sender, one per endpoint, kept warm with its keep-alive sockets; another store's is signed with its
 * secrets as they are at each attempt, so that a rotation is seen at once. A disabled store's webhooks are still
 * sent, so that its news is never dropped.
 */
export class StoreWebhookEndpoints implements StoreWebhookSenders {
  private readonly senders = new Map<StoreId, { url: string; sender: WebhookSender }>();

  constructor(
    private readonly defaultSender: WebhookSender | undefined,
    private readonly accounts: StoreAccounts,
    private readonly options: StoreSendersOptions,
  ) {}

  /** Undefined for a store with no endpoint; throws for a store the registry does not know. */
  async get(storeId: StoreId): Promise<WebhookSender | undefined> {
    if (storeId === DEFAULT_STORE_ID) return this.defaultSender;
    const account = await this.accounts.get(storeId);
    // Stores are never deleted: its events wait, and the run fails loudly, rather than drop them.
    if (!account) throw new Error(`No store ${storeId} for its webhooks`);
    const url = account.webhook?.url;
    if (url === undefined) return undefined;
    const known = this.senders.get(storeId);
    if (known?.url === url) return known.sender;
    const sender = this.senderTo(storeId, url);
    this.senders.set(storeId, { url, sender });
    return sender;
  }

  private senderTo(storeId: StoreId, url: string): WebhookSender {
    const refusal = endpointRefusal(url, this.options.allowLoopbackHttp);
    // Each attempt fails, and retries on the schedule, until the store's endpoint is one we may send to.
    if (refusal) return { send: async () => ({ status: null, error: `endpoint refused: ${refusal}` }) };
    const secrets = async () => {
      const webhook = (await this.accounts.get(storeId))?.webhook;
      if (!webhook) throw new Error('The store has no webhook endpoint any more');
      return webhook.secrets();
    };
    return new HttpWebhookSender({ url, secrets, now: this.options.now });
  }
}
