import { createServer } from 'node:http';
import { demoStore, OrderEvents } from '../../local/demo-store';
import { listen } from '../../local/listen';
import type { ReceivedEvent } from '../../local/webhook-receiver';

const received = (
  id: string,
  type: string,
  sequence: number,
  createdAt: string,
  data: Record<string, unknown>,
): ReceivedEvent => ({
  id,
  type,
  sequence,
  body: JSON.stringify({ id, type, created_at: createdAt, sequence, data }),
});

test("an order's events are listed once each, in the order they happened, with its refunds' after them", () => {
  const events = new OrderEvents();
  const order = { foreign_id: 'demo-1' };
  events.add(received('evt_3', 'invoice.paid', 3, '2026-01-01T00:00:02.000Z', order));
  events.add(received('evt_1', 'invoice.awaiting_payment', 1, '2026-01-01T00:00:00.000Z', order));
  // One write: a status and its exception, the same time.
  events.add(received('evt_5', 'invoice.exception', 5, '2026-01-01T00:00:03.000Z', order));
  events.add(received('evt_4', 'invoice.expired', 4, '2026-01-01T00:00:03.000Z', order));
  events.add(received('evt_3', 'invoice.paid', 3, '2026-01-01T00:00:02.000Z', order));
  events.add(
    received('evt_r1', 'refund.sent', 1, '2026-01-01T00:01:00.000Z', {
      foreign_id: 'refund-1',
      invoice_foreign_id: 'demo-1',
    }),
  );
  events.add(received('evt_x', 'invoice.paid', 2, '2026-01-01T00:00:01.000Z', { foreign_id: 'demo-2' }));

  expect(events.of('demo-1').map(({ type, sequence }) => `${type} #${sequence}`)).toEqual([
    'invoice.awaiting_payment #1',
    'invoice.paid #3',
    'invoice.expired #4',
    'invoice.exception #5',
    'refund.sent #1',
  ]);
  expect(events.of('demo-2')).toEqual([
    { id: 'evt_x', type: 'invoice.paid', sequence: 2, created_at: '2026-01-01T00:00:01.000Z' },
  ]);
  expect(events.of('demo-3')).toEqual([]);
});

test('past 1,000 orders, the one heard from least recently goes', () => {
  const events = new OrderEvents();
  const at = '2026-01-01T00:00:00.000Z';
  for (let n = 0; n <= 1_000; n++) {
    events.add(received(`evt_${n}`, 'invoice.awaiting_payment', 1, at, { foreign_id: `demo-${n}` }));
    // demo-0 keeps being heard from.
    if (n > 0) events.add(received(`evt_0_${n}`, 'invoice.confirming', 2, at, { foreign_id: 'demo-0' }));
  }
  expect(events.of('demo-0')).toHaveLength(1_001);
  expect(events.of('demo-1')).toEqual([]);
  expect(events.of('demo-2')).toHaveLength(1);
});

test("a checkout the plugin never answers gets 502 with the client's reason, and no token", async () => {
  // A plugin that drops every request unanswered.
  const silent = createServer((request) => request.socket.destroy());
  const plugin = await listen(silent);
  const store = demoStore({ apiUrl: () => plugin.url, storefrontToken: 'storefront-token-never-shown' });

  const page = await store('/demo/api/checkout', { method: 'POST', body: Buffer.from('{}') });
  await plugin.close();

  expect(page?.status).toBe(502);
  const body = JSON.parse(page!.body as string) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('plugin_unreachable');
  expect(body.error.message).toMatch(/after 3 attempts/);
  expect(page!.body).not.toContain('storefront-token-never-shown');
});
