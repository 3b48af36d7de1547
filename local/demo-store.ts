// The demo store's backend, served by `npm start` under /demo/api/: what a shop's own server does. It holds the
// storefront token, calls POST /checkout through the typed client (client/plugin-client.ts), and hands the browser
// only the invoice's customer URL and client secret. With the embedded sandbox it also stands in for the customer's
// wallet (pay in full, too little, too much, late, or let the timer run out), through the sandbox's control API,
// which the browser never sees. It is also the shop's webhook endpoint: what its receiver verified, the page lists
// under "Order events".
import { randomBytes } from 'node:crypto';
import {
  createPluginClient,
  PluginClientError,
  type Answered,
  type CheckoutBody,
  type CheckoutView,
} from '../client/plugin-client';
import { readJson, type LocalBackend, type LocalPage } from './gateway';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from './webhook-receiver';

export interface DemoStoreOptions {
  /** The plugin's API, as the store's server reaches it. */
  apiUrl: () => string;
  storefrontToken: string;
  /** The embedded sandbox; without it the demo has no wallet controls. */
  sandboxUrl?: string;
  /** What the store's webhook endpoint received; without it the page says how to switch webhooks on. */
  events?: OrderEvents;
}

/** How long the store waits for one checkout answer, and how often it sends the checkout at most. */
const CHECKOUT_TIMEOUT_MS = 10_000;
const CHECKOUT_ATTEMPTS = 3;

/** The product the demo sells. */
export const DEMO_PRODUCT = { title: 'Espresso machine', amount: '25.50', currency: 'EUR' } as const;

/** Each control: the sandbox calls that make it happen to the order's invoice (docs/sandbox.md). */
const WALLET_ACTIONS: Record<string, Array<[action: string, body?: object]>> = {
  'pay-full': [['pay', { kind: 'full' }]],
  'pay-under': [['pay', { kind: 'under' }]],
  'pay-over': [['pay', { kind: 'over' }]],
  'pay-late': [['expire'], ['pay', { kind: 'full' }]],
  expire: [['expire']],
};

const ORDER =
  /^\/demo\/api\/orders\/(demo-[A-Za-z0-9-]+)\/(pay-full|pay-under|pay-over|pay-late|expire|events)$/;

/**
 * A refund's next step, as the payment service would bring it: the sandbox completes or fails the withdrawal, or,
 * as another owner would, approves or declines one held for approval.
 */
const REFUND = /^\/demo\/api\/refunds\/([A-Za-z0-9._:-]{1,100})\/(complete|fail|approve|decline)$/;
const REFUND_STEPS: Record<string, { action: string; body?: object }> = {
  complete: { action: 'complete', body: { status: 'confirmed' } },
  fail: { action: 'complete', body: { status: 'failed', error: 'Failed in the sandbox' } },
  approve: { action: 'approve' },
  decline: { action: 'decline' },
};

export function demoStore(options: DemoStoreOptions): LocalBackend {
  return async (path, { method, body }) => {
    const order = ORDER.exec(path);
    if (method === 'GET' && order?.[2] === 'events') return orderEvents(options.events, order[1]);
    // Whether the wallet and refund controls work here; the console asks before it offers them.
    if (method === 'GET' && path === '/demo/api/sandbox') return json(200, { sandbox: !!options.sandboxUrl });
    if (method !== 'POST') return undefined;
    const refund = REFUND.exec(path);
    if (refund && options.sandboxUrl) return endRefund(options.sandboxUrl, refund[1], refund[2]);
    if (path === '/demo/api/checkout') return checkout(options, body);
    if (order && order[2] !== 'events' && options.sandboxUrl) {
      return wallet(options.sandboxUrl, order[1], order[2]);
    }
    return undefined;
  };
}

/** One event as the "Order events" panel lists it. */
export interface OrderEvent {
  id: string;
  type: string;
  sequence: number;
  created_at: string;
}

/** Orders whose events are kept; past it the oldest order's go, so that a long-running `npm start` stays small. */
const KEPT_ORDERS = 1_000;

/**
 * The events the store's endpoint verified, per order (a refund's under the order it refunds), each once however
 * often it came (delivery is at least once), listed in the order they happened.
 */
export class OrderEvents {
  private readonly orders = new Map<string, Map<string, OrderEvent>>();

  /** `event` verified: the plugin made its body. */
  add({ id, type, sequence, body }: ReceivedEvent): void {
    const { created_at, data } = JSON.parse(body) as {
      created_at: string;
      data: { foreign_id: string; invoice_foreign_id?: string | null };
    };
    const order = data.invoice_foreign_id ?? data.foreign_id;
    const events = this.orders.get(order) ?? new Map<string, OrderEvent>();
    events.set(id, { id, type, sequence, created_at });
    // Re-inserted, so that the Map's first order is the one heard from least recently.
    this.orders.delete(order);
    this.orders.set(order, events);
    if (this.orders.size > KEPT_ORDERS) this.orders.delete(this.orders.keys().next().value!);
  }

  /** Oldest first; within one write (a status and its exception), by sequence. */
  of(order: string): OrderEvent[] {
    return [...(this.orders.get(order)?.values() ?? [])].sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.sequence - b.sequence,
    );
  }
}

export type DemoWebhookEndpoint = WebhookReceiver & { events: OrderEvents };

/** The demo store's webhook endpoint: the local receiver, verifying each delivery, feeding `events`. */
export async function startDemoWebhookEndpoint(
  secret: string,
  onEvent: (event: ReceivedEvent) => void = () => undefined,
): Promise<DemoWebhookEndpoint> {
  const events = new OrderEvents();
  const receiver = await startWebhookReceiver(secret, {
    onEvent: (event) => {
      events.add(event);
      onEvent(event);
    },
  });
  return { ...receiver, events };
}

function orderEvents(events: OrderEvents | undefined, order: string): LocalPage {
  return json(200, { webhooks: events !== undefined, events: events?.of(order) ?? [] });
}

/**
 * One order of the product, checked out in BTC with a timer. The title is the customer's own words here, so that
 * the demo shows a shop's text passing through as text.
 */
async function checkout(options: DemoStoreOptions, body: Buffer): Promise<LocalPage> {
  const api = options.apiUrl();
  const { title } = readJson(body.toString('utf8'));
  const foreignId = `demo-${Date.now()}-${randomBytes(3).toString('hex')}`;
  const plugin = createPluginClient({
    apiUrl: api,
    token: options.storefrontToken,
    timeoutMs: CHECKOUT_TIMEOUT_MS,
    maxAttempts: CHECKOUT_ATTEMPTS,
  });
  const checkoutBody: CheckoutBody = {
    foreign_id: foreignId,
    amount: DEMO_PRODUCT.amount,
    currency: DEMO_PRODUCT.currency,
    sender_currency: 'BTC',
    type: 'fill_or_kill',
    timer: true,
    title: typeof title === 'string' && title !== '' ? title : DEMO_PRODUCT.title,
    email: 'customer@example.com',
    // The order goes along, so that the page the customer lands on can list its events too.
    url_success: `${api}/demo/?order=${foreignId}&outcome=paid`,
    url_failed: `${api}/demo/?order=${foreignId}&outcome=unpaid`,
  };
  let answer: Answered<CheckoutView>;
  try {
    // A checkout is safe to send again: the plugin answers the same invoice for the same foreign_id.
    answer = await plugin.send(() => plugin.POST('/checkout', { body: checkoutBody }));
  } catch (error) {
    if (!(error instanceof PluginClientError)) throw error;
    return json(502, { error: { code: error.code, message: error.message } });
  }
  if (!answer.data) {
    return json(answer.status, { error: answer.error ?? { message: 'The checkout failed' } });
  }
  return json(201, {
    foreign_id: foreignId,
    invoice_url: `${api}/public/invoices/${foreignId}`,
    client_secret: answer.data.client_secret,
    sandbox: options.sandboxUrl !== undefined,
  });
}

async function wallet(sandboxUrl: string, foreignId: string, control: string): Promise<LocalPage> {
  for (const [action, body] of WALLET_ACTIONS[control]) {
    const answer = await fetch(`${sandboxUrl}/_sandbox/invoices/${foreignId}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    if (!answer.ok) {
      const refused = readJson(await answer.text());
      return json(409, { error: { message: String(refused.error ?? 'The sandbox refused that step') } });
    }
  }
  return json(200, { done: control });
}

async function endRefund(sandboxUrl: string, foreignId: string, end: string): Promise<LocalPage> {
  const { action, body = {} } = REFUND_STEPS[end];
  const answer = await fetch(
    `${sandboxUrl}/_sandbox/withdrawals/${encodeURIComponent(foreignId)}/${action}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    },
  );
  if (answer.ok) return json(200, { done: end });
  const refused = readJson(await answer.text());
  return json(409, { error: { message: String(refused.error ?? 'The sandbox refused that step') } });
}

function json(status: number, body: object): LocalPage {
  return { status, contentType: 'application/json', body: JSON.stringify(body) };
}
