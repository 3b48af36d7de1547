// The demo store's backend, served by `npm start` under /demo/api/: what a shop's own server does. It holds the
// storefront token, calls POST /checkout, and hands the browser only the invoice's customer URL and client secret.
// With the embedded sandbox it also stands in for the customer's wallet (pay in full, too little, too much, late,
// or let the timer run out), through the sandbox's control API, which the browser never sees.
import { randomBytes } from 'node:crypto';
import { readJson, type LocalBackend, type LocalPage } from './gateway';

export interface DemoStoreOptions {
  /** The plugin's API, as the store's server reaches it. */
  apiUrl: () => string;
  storefrontToken: string;
  /** The embedded sandbox; without it the demo has no wallet controls. */
  sandboxUrl?: string;
}

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

const ORDER = /^\/demo\/api\/orders\/(demo-[A-Za-z0-9-]+)\/(pay-full|pay-under|pay-over|pay-late|expire)$/;

export function demoStore(options: DemoStoreOptions): LocalBackend {
  return async (path, { method, body }) => {
    if (method !== 'POST') return undefined;
    if (path === '/demo/api/checkout') return checkout(options, body);
    const order = ORDER.exec(path);
    if (order && options.sandboxUrl) return wallet(options.sandboxUrl, order[1], order[2]);
    return undefined;
  };
}

// Webhook events: once the plugin sends them, this backend is where the order's events arrive (a POST route
// beside these), and the page lists them under "Order events".

/**
 * One order of the product, checked out in BTC with a timer. The title is the customer's own words here, so that
 * the demo shows a shop's text passing through as text.
 */
async function checkout(options: DemoStoreOptions, body: Buffer): Promise<LocalPage> {
  const api = options.apiUrl();
  const { title } = readJson(body.toString('utf8'));
  const foreignId = `demo-${Date.now()}-${randomBytes(3).toString('hex')}`;
  const answer = await fetch(`${api}/checkout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.storefrontToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      foreign_id: foreignId,
      amount: DEMO_PRODUCT.amount,
      currency: DEMO_PRODUCT.currency,
      sender_currency: 'BTC',
      type: 'fill_or_kill',
      timer: true,
      title: typeof title === 'string' && title !== '' ? title : DEMO_PRODUCT.title,
      email: 'customer@example.com',
      url_success: `${api}/demo/paid.html`,
      url_failed: `${api}/demo/unpaid.html`,
    }),
  });
  const invoice = readJson(await answer.text());
  if (!answer.ok) return json(answer.status, { error: invoice.error ?? { message: 'The checkout failed' } });
  return json(201, {
    foreign_id: foreignId,
    invoice_url: `${api}/public/invoices/${foreignId}`,
    client_secret: invoice.client_secret,
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

function json(status: number, body: object): LocalPage {
  return { status, contentType: 'application/json', body: JSON.stringify(body) };
}
