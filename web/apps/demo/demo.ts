// The demo store's product page: "Pay with crypto" asks the store's backend (local/demo-store.ts) for a checkout,
// which answers the invoice's customer URL and client secret only, and mounts the widget from /widget/widget.js
// as any shop's page would. The sandbox wallet's buttons ask the same backend to pay.
import { show } from '../shared/dom';
import type * as Widget from '../widget/widget';

interface DemoCheckout {
  foreign_id: string;
  invoice_url: string;
  client_secret: string;
  sandbox: boolean;
}

// Loaded as a shop loads it, not bundled into this page.
const WIDGET_MODULE = new URL('/widget/widget.js', window.location.href).href;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

async function post<T>(path: string, body: object = {}): Promise<T> {
  const answer = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = (await answer.json()) as T & { error?: { message?: string } };
  if (!answer.ok) throw new Error(data.error?.message ?? `The store answered ${answer.status}`);
  return data;
}

async function payWithCrypto(button: HTMLButtonElement): Promise<void> {
  const problem = byId('problem');
  show(problem);
  button.disabled = true;
  try {
    const title = byId<HTMLInputElement>('order-title').value;
    const order = await post<DemoCheckout>('/demo/api/checkout', { title });
    const { mount } = (await import(WIDGET_MODULE)) as typeof Widget;
    byId('checkout').hidden = false;
    mount(byId('widget'), { invoiceUrl: order.invoice_url, clientSecret: order.client_secret });
    if (order.sandbox) showWallet(order.foreign_id);
  } catch (error) {
    show(problem, error instanceof Error ? error.message : 'The checkout failed');
    button.disabled = false;
  }
}

function showWallet(foreignId: string): void {
  const note = byId('wallet-note');
  byId('wallet').hidden = false;
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-action]')) {
    button.addEventListener('click', async () => {
      show(note, `${button.textContent}…`);
      try {
        await post(`/demo/api/orders/${foreignId}/${button.dataset.action}`);
        show(note, `${button.textContent}: sent to the sandbox.`);
      } catch (error) {
        show(note, error instanceof Error ? error.message : 'The sandbox refused');
      }
    });
  }
}

const pay = byId<HTMLButtonElement>('pay');
pay.addEventListener('click', () => void payWithCrypto(pay));
