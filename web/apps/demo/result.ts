// The pages the widget sends the customer to (paid.html, unpaid.html): the order named in `?order=` keeps its
// "Order events" panel, so that the events which came with the payment are there to see after the redirect.
import { watchOrderEvents } from './parts/order-events';

const order = new URLSearchParams(window.location.search).get('order');
if (order && /^demo-[A-Za-z0-9-]+$/.test(order)) {
  document.getElementById('events')!.hidden = false;
  watchOrderEvents(document.getElementById('events-panel')!, order);
}
