import { oneAccount } from '../../domain/upstream';
// The checkout claims the order, sends its create, saves the answer and answers: only the claim's owner sends, under
// the upstream foreign_id its record holds, and the invoice's client secret is the one of the record it made.
import { customerSecretHash, customerSecretMatches } from '../../domain/customer-secret';
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord } from '../../domain/model';
import type { CustomerSecrets, ProcessingApi, SecretHolder } from '../../domain/ports';
import { nextSweepAt } from '../../domain/reconcile';
import { checkoutRequest, SWEEP_TIMING } from '../support/domain-rig';
import { MemoryStore } from '../support/memory-store';

const timing = { now: () => Date.UTC(2030, 0, 1), leaseMs: 45_000, waitMs: 0, pollMs: 1 };

/** A service that creates every invoice at once, noting the upstream ids sent. */
function recordingService() {
  const sent: string[] = [];
  const service = {
    createInvoice: async (upstreamForeignId: string) => {
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
  } as unknown as ProcessingApi;
  return { service, sent };
}

/** Secrets named after what they are for, noting each one issued. */
function recordingSecrets() {
  const issued: SecretHolder[] = [];
  const secrets: CustomerSecrets = {
    secretFor: async ({ foreignId, createdAt }) => {
      issued.push({ foreignId, createdAt });
      return `cs_${foreignId}@${createdAt}`;
    },
  };
  return { secrets, issued };
}

function invoicesWith(service: ProcessingApi, clientSecrets?: CustomerSecrets) {
  const store = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  return { store, invoices: new InvoiceService(store, oneAccount(service), timing, { clientSecrets }) };
}

test('a repeated checkout sends no create: the order was created once', async () => {
  const { service, sent } = recordingService();
  const { invoices } = invoicesWith(service);

  const first = await invoices.checkout(checkoutRequest('order-1'));
  const again = await invoices.checkout(checkoutRequest('order-1'));

  expect([first.created, again.created]).toEqual([true, false]);
  expect(sent).toEqual(['order-1']);
});

test('a claim taken over from an abandoned attempt sends under the next upstream id', async () => {
  const { service, sent } = recordingService();
  const { store, invoices } = invoicesWith(service);
  await invoices.checkout(checkoutRequest('order-2'));
  const created = (await store.get('order-2'))!;
  await store.update({ ...created, phase: 'abandoned', version: created.version + 1 }, created.version);

  const retried = await invoices.checkout(checkoutRequest('order-2'));

  expect(retried.created).toBe(true);
  expect(retried.record.attempt).toBe(2);
  expect(sent).toEqual(['order-2', 'order-2~2']);
});

test("a new invoice's secret is the one of the record it made; a take-over gets its own record's", async () => {
  const { service } = recordingService();
  const { secrets, issued } = recordingSecrets();
  const { store, invoices } = invoicesWith(service, secrets);
  const made = Date.UTC(2030, 0, 1);

  const first = await invoices.checkout(checkoutRequest('order-3'));
  expect(first.clientSecret).toBe(`cs_order-3@${made}`);
  expect(customerSecretMatches(first.clientSecret!, first.record.clientSecretHash)).toBe(true);
  expect(first.record.clientSecretHash).toBe(customerSecretHash(`cs_order-3@${made}`));

  // An abandoned attempt made at another time: the take-over's record keeps that createdAt, and so its secret.
  const created = (await store.get('order-3'))!;
  const earlier = made - 60_000;
  await store.update(
    { ...created, phase: 'abandoned', createdAt: earlier, version: created.version + 1 },
    created.version,
  );
  const retried = await invoices.checkout(checkoutRequest('order-3'));
  expect(retried.clientSecret).toBe(`cs_order-3@${earlier}`);
  expect(customerSecretMatches(retried.clientSecret!, retried.record.clientSecretHash)).toBe(true);
  expect(issued).toEqual([
    { foreignId: 'order-3', createdAt: made },
    { foreignId: 'order-3', createdAt: earlier },
  ]);
});

test('the checkout answers the record that won when another write reached it first', async () => {
  const store = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  // Just before the answered write, the store owner's cancel lands on the claimed record.
  const update = store.update.bind(store);
  let cancelFirst = true;
  store.update = async (record: InvoiceRecord, expectedVersion: number) => {
    if (cancelFirst && record.phase === 'sent') {
      cancelFirst = false;
      const claimed = (await store.get(record.foreignId))!;
      await update({ ...claimed, cancelled: true, version: claimed.version + 1 }, claimed.version);
    }
    return update(record, expectedVersion);
  };
  const invoices = new InvoiceService(store, oneAccount(recordingService().service), timing);

  const answered = await invoices.checkout(checkoutRequest('order-5'));

  expect(answered).toMatchObject({ created: true, record: { status: null, cancelled: true } });
  expect(answered.record).toEqual(await store.get('order-5'));
});
