// With every callback lost, the sweep alone must tell the storefront about a payment, and soon.
import type { InvoiceRecord } from '../../domain/model';
import { invoiceView } from '../../http/views';
import { checkoutRequest, startDomainRig, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
beforeEach(async () => {
  rig = await startDomainRig();
});
afterEach(() => rig.close());

const MINUTE = 60_000;
// The deployed reconcile job runs once a minute (lib/settings.ts).
const SWEEP_EVERY_MS = MINUTE;

/** Moves the clock on by `ms`, running the sweep each time its schedule comes round. */
async function runFor(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= SWEEP_EVERY_MS) {
    rig.clock.ms += Math.min(SWEEP_EVERY_MS, left);
    await rig.sweep();
  }
}

const stored = async (foreignId: string): Promise<InvoiceRecord> => (await rig.invoiceStore.get(foreignId))!;

// Within a couple of minutes while the invoice is young; old ones are looked at less often (about age / 8).
test.each([
  [0, 3],
  [5, 3],
  [13, 3],
  [90, 13],
  [24 * 60, 61],
])(
  'a payment made %i minutes after checkout shows within %i minutes, with what was paid',
  async (minutes, within) => {
    const foreignId = `order-paid-${minutes}`;
    // A timer would end an invoice unpaid after 15 minutes; without one it waits as long as it takes.
    await rig.invoices.checkout(checkoutRequest(foreignId, { timer: minutes < 15 }));
    await runFor(minutes * MINUTE + 10_000);
    const paid = await rig.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full', hold: true });
    expect(paid.status).toBe('processing');

    await runFor(within * MINUTE);

    const record = await stored(foreignId);
    expect(record.status).toBe('processing');
    expect(record.payment).toMatchObject({ currency: 'BTC', amount: paid.paid_amount });
    const view = invoiceView(record, rig.clock.ms + 30 * MINUTE);
    expect(view).toMatchObject({ status: 'confirming', final: false });
  },
);

test('an invoice nobody pays is closed out within two minutes of its timer running out', async () => {
  await rig.invoices.checkout(checkoutRequest('order-unpaid'));
  await runFor(15 * MINUTE - 10_000);
  expect((await stored('order-unpaid')).status).toBe('pending');

  await runFor(2 * MINUTE);

  expect((await stored('order-unpaid')).status).toBe('failed');
});

test("the sweep's reads stay bounded: an invoice left open costs about 55 lookups on its first day, then 24 a day", async () => {
  await rig.invoices.checkout(
    checkoutRequest('order-forgotten', { timer: false, senderCurrency: undefined }),
  );
  const lookups = async () =>
    (await rig.control('GET', '/requests?path=/v2/transactions/info')).requests.length as number;

  await runFor(24 * 60 * MINUTE);
  const firstDay = await lookups();
  await runFor(24 * 60 * MINUTE);

  expect(firstDay).toBeGreaterThanOrEqual(50);
  expect(firstDay).toBeLessThanOrEqual(60);
  expect((await lookups()) - firstDay).toBe(24);
});

describe('the sweep reads each record it looks at once: the listing reads it, the look and the mark start from it', () => {
  const gets = () => jest.spyOn(rig.invoiceStore, 'get');

  test('with news and without, no record is read again, and each is marked looked at', async () => {
    await rig.invoices.checkout(checkoutRequest('order-quiet'));
    await rig.invoices.checkout(checkoutRequest('order-news'));
    await rig.control('POST', '/invoices/order-news/pay', { kind: 'full', hold: true });
    rig.clock.ms += 2 * MINUTE;
    const reads = gets();

    const report = await rig.sweep();

    expect(report).toMatchObject({ invoicesChecked: 2, failures: 0 });
    expect(reads).not.toHaveBeenCalled();
    expect(await stored('order-quiet')).toMatchObject({ status: 'pending', sweptAt: rig.clock.ms });
    expect(await stored('order-news')).toMatchObject({ status: 'processing', sweptAt: rig.clock.ms });
  });

  test('a record written after the listing read it is read again once, and keeps both changes', async () => {
    await rig.invoices.checkout(checkoutRequest('order-raced'));
    rig.clock.ms += 2 * MINUTE;
    const reads = gets();
    const listOpen = rig.invoiceStore.listOpen.bind(rig.invoiceStore);
    jest.spyOn(rig.invoiceStore, 'listOpen').mockImplementation(async (...args) => {
      const listed = await listOpen(...args);
      // A callback lands between the listing and the look.
      await rig.invoices.applyStatus({
        upstreamForeignId: 'order-raced',
        status: 'processing',
        source: 'callback',
      });
      reads.mockClear();
      return listed;
    });

    await rig.sweep();

    expect(reads).toHaveBeenCalledTimes(1);
    expect(await stored('order-raced')).toMatchObject({ status: 'processing', sweptAt: rig.clock.ms });
  });
});
