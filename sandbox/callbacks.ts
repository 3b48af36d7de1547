import { request, type ClientRequest } from 'node:http';
import { sign, type Keys } from './auth';
import { toJson } from './json';

export interface CallbackSettings {
  url: string | null;
  /** Waits after each failed attempt; when they run out the callback is dropped. */
  retryMs: number[];
  /** Deliver every callback twice, as the public service may. */
  duplicate: boolean;
}

export interface Delivery {
  /** Which callback this attempt carries; a forced duplicate has the same event and body. */
  event: number;
  url: string;
  body: string;
  /** The receiver's HTTP status; null after a connection error or timeout. */
  status: number | null;
  attempt: number;
  at: number;
}

const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * The payment service's waits, in minutes, before each of its 12 retries of a callback not answered 200
 * (docs.cryptoprocessing.com, api-reference/callbacks/callbacks-overview; docs/payment-outcomes-notes.md).
 */
export const SERVICE_CALLBACK_RETRY_MINUTES = [1, 5, 15, 30, 60, 90, 120, 180, 240, 240, 240, 240];

/** The service's retry schedule on a clock `speedUp` times faster than real time, in milliseconds. */
export function callbackRetrySchedule(speedUp: number): number[] {
  return SERVICE_CALLBACK_RETRY_MINUTES.map((minutes) => Math.round((minutes * 60_000) / speedUp));
}

/**
 * Posts signed callbacks. Callbacks about one transaction go out in order, each retried on the backoff schedule
 * before the next one starts; different transactions do not wait for each other.
 */
export class CallbackSender {
  deliveries: Delivery[] = [];
  settings: CallbackSettings;
  private chains = new Map<string, Promise<void>>();
  private timers = new Set<NodeJS.Timeout>();
  private requests = new Set<ClientRequest>();
  private nextEvent = 1;
  // Bumped by reset and close, so that work begun before them stops quietly.
  private generation = 0;

  constructor(
    private readonly defaults: CallbackSettings,
    private readonly keys: Keys,
    private readonly now: () => number,
    private readonly log: (line: string) => void,
  ) {
    this.settings = { ...defaults, retryMs: [...defaults.retryMs] };
  }

  send(transactionKey: string, payload: unknown): void {
    if (!this.settings.url) return;
    const body = toJson(payload);
    const event = this.nextEvent++;
    const copies = this.settings.duplicate ? 2 : 1;
    const generation = this.generation;
    const previous = this.chains.get(transactionKey) ?? Promise.resolve();
    const chain = previous.then(async () => {
      for (let copy = 0; copy < copies; copy++) await this.deliver(event, body, generation);
    });
    this.chains.set(transactionKey, chain);
    void chain.finally(() => {
      if (this.chains.get(transactionKey) === chain) this.chains.delete(transactionKey);
    });
  }

  reset(): void {
    this.stop();
    this.deliveries = [];
    this.nextEvent = 1;
    this.settings = { ...this.defaults, retryMs: [...this.defaults.retryMs] };
  }

  stop(): void {
    this.generation++;
    for (const timer of this.timers) clearTimeout(timer);
    for (const pending of this.requests) pending.destroy();
    this.timers.clear();
    this.requests.clear();
    this.chains.clear();
  }

  private async deliver(event: number, body: string, generation: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const url = this.settings.url;
      if (generation !== this.generation || !url) return;
      const status = await this.post(url, body);
      if (generation !== this.generation) return;
      this.deliveries.push({ event, url, body, status, attempt, at: this.now() });
      this.log(`callback ${event} attempt ${attempt} -> ${url}: ${status ?? 'connection error'}`);
      if (status === 200) return;
      const wait = this.settings.retryMs[attempt - 1];
      if (wait === undefined) return;
      await this.sleep(wait);
    }
  }

  private post(url: string, body: string): Promise<number | null> {
    return new Promise((resolve) => {
      let outgoing: ClientRequest;
      try {
        outgoing = request(url, {
          method: 'POST',
          agent: false,
          timeout: ATTEMPT_TIMEOUT_MS,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            'X-Processing-Key': this.keys.apiKey,
            'X-Processing-Signature': sign(this.keys.secretKey, body),
          },
        });
      } catch {
        resolve(null); // a URL node:http cannot use counts as a connection error
        return;
      }
      const settle = (status: number | null) => {
        this.requests.delete(outgoing);
        resolve(status);
      };
      outgoing.on('response', (response) => {
        response.resume();
        response.on('end', () => settle(response.statusCode ?? null));
        response.on('error', () => settle(null));
      });
      outgoing.on('timeout', () => outgoing.destroy());
      outgoing.on('error', () => settle(null));
      this.requests.add(outgoing);
      outgoing.end(body);
    });
  }

  // A cleared timer leaves its promise pending; the generation check makes sure nothing waits on it.
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}
