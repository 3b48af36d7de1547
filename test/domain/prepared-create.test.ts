// The checkout readies its first attempt's create before it claims the order: only the claim's owner sends it, and
// only under the upstream foreign_id it was readied for.
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { nextSweepAt } from '../../domain/reconcile';
import { checkoutRequest, SWEEP_TIMING } from '../support/domain-rig';
import { MemoryStore } from '../support/memory-store';

const timing = { now: () => Date.UTC(2030, 0, 1), leaseMs: 45_000, waitMs: 0, pollMs: 1 };

/** A service that creates every invoice at once, noting which upstream ids were readied and which were sent. */
function recordingService() {
  const readied: string[] = [];
  const sent: string[] = [];
  const service = {
    prepareInvoice: (upstreamForeignId: string) => {
      readied.push(upstreamForeignId);
      return {
        send: async () => {
          sent.push(upstreamForeignId);
          return {
            status: 'pending',
            details: {
              id: sent.length,
              url: `https://pay.example/${upstreamForeignId}`,
              address: 'bc1qexample',
              tag: null,
              amount: '25.50000000',
              senderCurrency: 'BTC',
              senderAmount: '0.00045900',
              fixedAt: null,
              releaseAt: null,
            },
          };
        },
      };
    },
  } as unknown as ProcessingApi;
  return { service, readied, sent };
}

function invoicesWith(service: ProcessingApi) {
  const store = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  return { store, invoices: new InvoiceService(store, service, timing) };
}

test('a repeated checkout readies a create but sends none: the order was created once', async () => {
  const { service, readied, sent } = recordingService();
  const { invoices } = invoicesWith(service);

  const first = await invoices.checkout(checkoutRequest('order-1'));
  const again = await invoices.checkout(checkoutRequest('order-1'));

  expect([first.created, again.created]).toEqual([true, false]);
  expect(readied).toEqual(['order-1', 'order-1']);
  expect(sent).toEqual(['order-1']);
});

test('a claim taken over from an abandoned attempt sends under the next upstream id, not the readied one', async () => {
  const { service, readied, sent } = recordingService();
  const { store, invoices } = invoicesWith(service);
  await invoices.checkout(checkoutRequest('order-2'));
  const created = (await store.get('order-2'))!;
  await store.update({ ...created, phase: 'abandoned', version: created.version + 1 }, created.version);

  const retried = await invoices.checkout(checkoutRequest('order-2'));

  expect(retried.created).toBe(true);
  expect(retried.record.attempt).toBe(2);
  expect(readied).toEqual(['order-2', 'order-2', 'order-2~2']);
  expect(sent).toEqual(['order-2', 'order-2~2']);
});
