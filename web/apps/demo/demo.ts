// The demo store's product page: "Pay with crypto" asks the store's backend (local/demo-store.ts) for a checkout,
// which answers the invoice's customer URL and client secret only, and mounts the widget from /widget/widget.js
// as any shop's page would. The sandbox wallet's buttons ask the same backend to pay. The widget sends the
// customer back to this page with `?order=<foreign_id>&outcome=paid|unpaid`: it then says how the order ended
// and keeps the order's "Order events" panel, so that the events which came with the payment are there to see.
import { show } from '../shared/dom';
import type * as Widget from '../widget/widget';
import { watchOrderEvents, type EventsWatch } from './parts/order-events';
import { storeRequest } from './parts/store';

interface DemoCheckout {
  foreign_id: string;
  invoice_url: string;
  client_secret: string;
  sandbox: boolean;
}

// Loaded as a shop loads it, not bundled into this page.
const WIDGET_MODULE = new URL('/widget/widget.js', window.location.href).href;

/** The shop's name, as its page heads it; the widget shows it too, so that the customer knows whom they pay. */
const STORE_NAME = 'Northwind Coffee';
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

async function payWithCrypto(button: HTMLButtonElement): Promise<void> {
  const problem = byId('problem');
  show(problem);
  button.disabled = true;
  try {
    const title = byId<HTMLInputElement>('order-title').value;
    const order = await storeRequest<DemoCheckout>('/demo/api/checkout', 'POST', { title });
    const { mount } = (await import(WIDGET_MODULE)) as typeof Widget;
    byId('checkout').hidden = false;
    mount(byId('widget'), {
      invoiceUrl: order.invoice_url,
      clientSecret: order.client_secret,
      merchantName: STORE_NAME,
    });
    const events = watchOrderEvents(byId('events-panel'), order.foreign_id);
    if (order.sandbox) showWallet(order.foreign_id, events);
  } catch (error) {
    show(problem, error instanceof Error ? error.message : 'The checkout failed');
    button.disabled = false;
  }
}

function showWallet(foreignId: string, events: EventsWatch): void {
  const note = byId('wallet-note');
  byId('wallet').hidden = false;
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-action]')) {
    button.addEventListener('click', async () => {
      show(note, `${button.textContent}…`);
      try {
        await storeRequest(`/demo/api/orders/${foreignId}/${button.dataset.action}`, 'POST', {});
        show(note, `${button.textContent}: sent to the sandbox.`);
        events.soon();
      } catch (error) {
        show(note, error instanceof Error ? error.message : 'The sandbox refused');
      }
    });
  }
}

function showOutcome(foreignId: string, outcome: string): void {
  byId('product').hidden = true;
  const shown = byId(outcome);
  shown.hidden = false;
  document.title = `${STORE_NAME} · ${shown.querySelector('h1')!.textContent}`;
  watchOrderEvents(byId('events-panel'), foreignId);
}

const returned = new URLSearchParams(window.location.search);
const order = returned.get('order');
const outcome = returned.get('outcome');
if (order && /^demo-[A-Za-z0-9-]+$/.test(order) && (outcome === 'paid' || outcome === 'unpaid')) {
  showOutcome(order, outcome);
} else {
  const pay = byId<HTMLButtonElement>('pay');
  pay.addEventListener('click', () => void payWithCrypto(pay));
}
