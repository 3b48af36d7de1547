// The checkout readies its first attempt's create before it claims the order: only the claim's owner sends it, and
// only under the upstream foreign_id it was readied for. So with the invoice's client secret: issued only for the
// record the claim made. And the caller's answer is made while the answered record is written: it stands only if
// that write won.
import { clientSecretHash, clientSecretMatches } from '../../domain/client-secret';
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord } from '../../domain/model';
import type { ClientSecrets, ProcessingApi, SecretHolder } from '../../domain/ports';
import { nextSweepAt } from '../../domain/reconcile';
import { checkoutRequest, SWEEP_TIMING } from '../support/domain-rig';
import { MemoryStore } from '../support/memory-store';
import { answeredAfterImmediates } from '../support/wait';

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

/** Secrets named after what they are for, noting each one readied and each one issued. */
function recordingSecrets() {
  const readied: SecretHolder[] = [];
  const issued: SecretHolder[] = [];
  const secretOf = ({ foreignId, createdAt }: SecretHolder) => `cs_${foreignId}@${createdAt}`;
  const secrets: ClientSecrets = {
    secretFor: async (invoice) => secretOf(invoice),
    prepare: (invoice, hash) => {
      const holder = { foreignId: invoice.foreignId, createdAt: invoice.createdAt };
      readied.push(holder);
      return {
        issue: async () => {
          issued.push(holder);
          return { secret: secretOf(invoice), hash: hash(secretOf(invoice)) };
        },
      };
    },
  };
  return { secrets, readied, issued };
}

function invoicesWith(service: ProcessingApi, clientSecrets?: ClientSecrets) {
  const store = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  return { store, invoices: new InvoiceService(store, service, timing, { clientSecrets }) };
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

test("the secret readied with the claim is issued for the record it made; a take-over gets its own record's", async () => {
  const { service } = recordingService();
  const { secrets, readied, issued } = recordingSecrets();
  const { store, invoices } = invoicesWith(service, secrets);
  const made = Date.UTC(2030, 0, 1);

  const first = await invoices.checkout(checkoutRequest('order-3'));
  expect(first.clientSecret).toBe(`cs_order-3@${made}`);
  expect(clientSecretMatches(first.clientSecret!, first.record.clientSecretHash)).toBe(true);
  expect(first.record.clientSecretHash).toBe(clientSecretHash(`cs_order-3@${made}`));

  // An abandoned attempt made at another time: the take-over's record keeps that createdAt, and so its secret.
  const created = (await store.get('order-3'))!;
  const earlier = made - 60_000;
  await store.update(
    { ...created, phase: 'abandoned', createdAt: earlier, version: created.version + 1 },
    created.version,
  );
  const retried = await invoices.checkout(checkoutRequest('order-3'));
  expect(retried.clientSecret).toBe(`cs_order-3@${earlier}`);

  expect(readied).toEqual([
    { foreignId: 'order-3', createdAt: made },
    { foreignId: 'order-3', createdAt: made },
    { foreignId: 'order-3', createdAt: earlier },
  ]);
  expect(issued).toEqual([
    { foreignId: 'order-3', createdAt: made },
    { foreignId: 'order-3', createdAt: earlier },
  ]);
});

/** Writes answered after the work readied while they are in flight, as DynamoDB's are; `before` runs first on each. */
class SlowStore extends MemoryStore<InvoiceRecord> {
  before: (record: InvoiceRecord) => Promise<void> = async () => undefined;
  writing = 0;

  constructor() {
    super((record) => nextSweepAt(record, SWEEP_TIMING));
  }

  override async update(record: InvoiceRecord, expectedVersion: number): Promise<boolean> {
    await this.before(record);
    this.writing += 1;
    await answeredAfterImmediates();
    this.writing -= 1;
    return super.update(record, expectedVersion);
  }
}

describe("the caller's answer of a new invoice", () => {
  const answerOf = (checkout: { record: InvoiceRecord; created: boolean }) => ({
    status: checkout.created ? 201 : 200,
    invoiceStatus: checkout.record.status,
    cancelled: checkout.record.cancelled,
  });

  test('is made once, while the answered record is written, for the record that write stores', async () => {
    const store = new SlowStore();
    const writesInFlight: number[] = [];
    const answer = jest.fn((checkout: Parameters<typeof answerOf>[0]) => {
      writesInFlight.push(store.writing);
      return answerOf(checkout);
    });
    const invoices = new InvoiceService(store, recordingService().service, timing);

    const answered = await invoices.checkout(checkoutRequest('order-4'), answer);

    expect(answered).toEqual({ status: 201, invoiceStatus: 'pending', cancelled: false });
    expect(writesInFlight).toEqual([1]);
    expect(answer.mock.calls[0][0].record).toEqual(await store.get('order-4'));
  });

  test('is made again for what won when another write won the record first', async () => {
    const store = new SlowStore();
    // Just before the answered write, the store owner's cancel lands on the claimed record.
    store.before = async (record) => {
      store.before = async () => undefined;
      const claimed = (await store.get(record.foreignId))!;
      await MemoryStore.prototype.update.call(store, { ...claimed, cancelled: true, version: 2 }, 1);
    };
    const answer = jest.fn(answerOf);
    const invoices = new InvoiceService(store, recordingService().service, timing);

    const answered = await invoices.checkout(checkoutRequest('order-5'), answer);

    expect(answer).toHaveBeenCalledTimes(2);
    expect(answered).toEqual({ status: 201, invoiceStatus: null, cancelled: true });
  });

  test('that throws while the record is written throws from the checkout once the record is written', async () => {
    const store = new SlowStore();
    const failure = new Error('view failed');
    const answer = jest.fn(() => {
      throw failure;
    });
    const invoices = new InvoiceService(store, recordingService().service, timing);

    await expect(invoices.checkout(checkoutRequest('order-6'), answer)).rejects.toBe(failure);
    expect(answer).toHaveBeenCalledTimes(2);
    expect(await store.get('order-6')).toMatchObject({ phase: 'sent', status: 'pending' });
  });
});
