import { oneAccount } from '../../domain/upstream';
// A checkout that died after its claim, before the service's answer was written: the sweep first sees it when an
// answered invoice would be first due, and gives it up only once stale, as before.
import { InvoiceService } from '../../domain/invoices';
import type { CheckoutRequest, InvoiceRecord } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { ProcessingAdapter } from '../../processing/adapter';
import { checkoutRequest, startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
beforeEach(async () => {
  rig = await startDomainRig();
});
afterEach(() => rig.close());

/** The record a checkout's claim writes, as if its invocation died before anything else. */
async function diedAfterClaim(foreignId: string): Promise<InvoiceRecord> {
  await rig.invoices.checkout(checkoutRequest('template'));
  const template = (await rig.invoiceStore.get('template'))!;
  const at = rig.clock.ms;
  const claim: InvoiceRecord = {
    ...template,
    foreignId,
    request: { ...template.request, foreignId },
    version: 1,
    phase: 'sending',
    status: null,
    invoice: null,
    history: [],
    claimedAt: at,
    createdAt: at,
    updatedAt: at,
  };
  expect(await rig.invoiceStore.create(claim)).toBe(true);
  return claim;
}

const cancels = async () =>
  ((await rig.control('GET', '/requests')).requests as Array<{ path: string }>).filter((request) =>
    request.path.endsWith('/cancel/'),
  ).length;

test('a claim left sending is looked at a grace after checkout, left alone, and abandoned once stale', async () => {
  await diedAfterClaim('order-died');

  rig.clock.ms += SWEEP_TIMING.expiryGraceMs;
  const early = await rig.sweep();

  expect(early).toMatchObject({ invoicesAbandoned: 0, failures: 0 });
  expect(await rig.invoiceStore.get('order-died')).toMatchObject({
    phase: 'sending',
    sweptAt: rig.clock.ms,
  });
  expect(await cancels()).toBe(0);

  rig.clock.ms += SWEEP_TIMING.staleAfterMs;
  const late = await rig.sweep();

  expect(late).toMatchObject({ invoicesAbandoned: 1, failures: 0 });
  expect(await rig.invoiceStore.get('order-died')).toMatchObject({ phase: 'abandoned' });
  expect(await cancels()).toBe(1);
});

test('a claim that is already stale when first looked at is abandoned at once', async () => {
  await diedAfterClaim('order-died-long-ago');

  rig.clock.ms += SWEEP_TIMING.staleAfterMs;

  expect(await rig.sweep()).toMatchObject({ invoicesAbandoned: 1, failures: 0 });
  expect(await rig.invoiceStore.get('order-died-long-ago')).toMatchObject({ phase: 'abandoned' });
});

test("the sweep's look at a claim it listed before a retry took it over leaves the retry's claim alone", async () => {
  const { request } = await diedAfterClaim('order-retried');
  rig.clock.ms += SWEEP_TIMING.expiryGraceMs + 1_000;
  const listed = await rig.invoices.listDue(100, rig.clock.ms);
  expect(listed.map(({ record }) => record.foreignId)).toContain('order-retried');
  // The retry takes the claim over; its create waits, once sent, until the sweep has got to the record.
  let sweepDone!: () => void;
  const swept = new Promise<void>((resolve) => (sweepDone = resolve));
  let claimed!: () => void;
  const sending = new Promise<void>((resolve) => (claimed = resolve));
  const adapter = new ProcessingAdapter(rig.client);
  const held: ProcessingApi = Object.assign(Object.create(adapter), {
    createInvoice: async (id: string, ask: CheckoutRequest) => {
      claimed();
      const created = await adapter.createInvoice(id, ask);
      await swept;
      return created;
    },
  });
  const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  const retry = new InvoiceService(rig.invoiceStore, oneAccount(held), timing).checkout(request);
  await sending;

  // What the sweep does with a claim it listed that is not stale (domain/reconcile.ts).
  await rig.invoices.markSwept('order-retried');
  sweepDone();
  const { created, record } = await retry;

  expect(created).toBe(true);
  expect(record).toMatchObject({ phase: 'sent', status: 'pending', invoice: expect.any(Object) });
  expect(await rig.invoiceStore.get('order-retried')).toMatchObject({ phase: 'sent', status: 'pending' });
  expect(await cancels()).toBe(0);
});
