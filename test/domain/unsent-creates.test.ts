import { oneAccount } from '../../domain/upstream';
// A create that surely never reached the service made nothing: its claim is left unsent, not unknown, so that no
// retry or sweep later takes an invoice the service holds under the foreign_id for a lost answer of ours, and
// cancels it.
import { ServiceError } from '../../domain/errors';
import { InvoiceService } from '../../domain/invoices';
import type { CheckoutRequest } from '../../domain/model';
import type { CustomerSecrets } from '../../domain/ports';
import { ProcessingAdapter } from '../../processing/adapter';
import { ProcessingClient } from '../../processing/client';
import { closedPortUrl } from '../processing/fake-service';
import { checkoutRequest, startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
let unreachable: ProcessingClient;
beforeEach(async () => {
  rig = await startDomainRig();
  const keys = { apiKey: rig.sandbox.apiKey, secretKey: rig.sandbox.secretKey };
  unreachable = new ProcessingClient({
    baseUrl: await closedPortUrl(),
    keys: { get: async () => keys, refresh: async () => keys },
    maxRetries: 0,
  });
});
afterEach(async () => {
  await unreachable.close();
  await rig.close();
});

const timing = () => ({ now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 });

/** The invoices over the rig's store, their creates sent to a port nobody listens on. */
const invoicesUnreachable = () =>
  new InvoiceService(rig.invoiceStore, oneAccount(new ProcessingAdapter(unreachable)), timing());

const cancels = async () =>
  ((await rig.control('GET', '/requests')).requests as Array<{ path: string }>).filter((request) =>
    request.path.endsWith('/cancel/'),
  ).length;

/** An invoice someone else made at the service under this foreign_id (a signed call, not through us). */
async function createdElsewhere(foreignId: string): Promise<void> {
  await rig.client.createInvoice({
    foreign_id: foreignId,
    timer: true,
    title: 'Made elsewhere',
    currency: 'EUR',
    amount: '3',
    url_success: 'https://shop.example/ok',
    url_failed: 'https://shop.example/failed',
    email_user: 'someone@example.com',
  });
}

test('the claim is left unsent: a retry finds the foreign_id taken elsewhere, and nothing is cancelled', async () => {
  await createdElsewhere('unsent-1');

  const error = await invoicesUnreachable()
    .checkout(checkoutRequest('unsent-1'))
    .catch((e: unknown) => e);

  expect(error).toMatchObject({ constructor: ServiceError, failure: 'unreachable' });
  expect(await rig.invoiceStore.get('unsent-1')).toMatchObject({
    phase: 'unsent',
    attempt: 1,
    invoice: null,
  });
  await expect(rig.invoices.checkout(checkoutRequest('unsent-1'))).rejects.toMatchObject({
    failure: 'duplicate_foreign_id',
  });
  expect((await rig.control('GET', '/invoices/unsent-1')).status).toBe('pending');
  rig.clock.ms += 2 * SWEEP_TIMING.staleAfterMs;
  expect(await rig.sweep()).toMatchObject({ invoicesAbandoned: 0, failures: 0 });
  expect(await cancels()).toBe(0);
});

test('an unsent claim is sent afresh by a retry, under the same upstream foreign_id', async () => {
  await expect(invoicesUnreachable().checkout(checkoutRequest('unsent-2'))).rejects.toMatchObject({
    failure: 'unreachable',
  });

  const { record, created } = await rig.invoices.checkout(checkoutRequest('unsent-2'));

  expect(created).toBe(true);
  expect(record).toMatchObject({ phase: 'sent', status: 'pending', attempt: 1 });
  expect((await rig.control('GET', '/invoices/unsent-2')).status).toBe('pending');
  expect(await cancels()).toBe(0);
});

test('an unsent foreign_id is free for a different request, as a refused one is', async () => {
  await expect(invoicesUnreachable().checkout(checkoutRequest('unsent-5'))).rejects.toMatchObject({
    failure: 'unreachable',
  });

  const { record } = await rig.invoices.checkout(checkoutRequest('unsent-5', { amount: '30' }));

  expect(record).toMatchObject({ phase: 'sent', request: { amount: '30' } });
});

test('after a lost answer, the next attempt left unsent is not taken for ours either', async () => {
  await createdElsewhere('unsent-4~2');
  await rig.control('POST', '/faults', { path: '/v2/invoices/create', kind: 'reset_after_commit', times: 1 });
  await expect(rig.invoices.checkout(checkoutRequest('unsent-4'))).rejects.toThrow();
  expect(await rig.invoiceStore.get('unsent-4')).toMatchObject({ phase: 'unknown', attempt: 1 });
  // The retry cancels its own lost attempt, then cannot reach the service for the next one.
  const cancelsOnly = new InvoiceService(
    rig.invoiceStore,
    oneAccount(
      Object.assign(Object.create(new ProcessingAdapter(rig.client)), {
        createInvoice: (id: string, request: CheckoutRequest) =>
          new ProcessingAdapter(id === 'unsent-4' ? rig.client : unreachable).createInvoice(id, request),
      }),
    ),
    timing(),
  );
  await expect(cancelsOnly.checkout(checkoutRequest('unsent-4'))).rejects.toMatchObject({
    failure: 'unreachable',
  });
  expect(await rig.invoiceStore.get('unsent-4')).toMatchObject({ phase: 'unsent', attempt: 2 });

  await expect(rig.invoices.checkout(checkoutRequest('unsent-4'))).rejects.toMatchObject({
    failure: 'duplicate_foreign_id',
  });

  expect(await cancels()).toBe(1);
  expect((await rig.control('GET', '/invoices/unsent-4~2')).status).toBe('pending');
});

test('a client secret that cannot be had before the send takes the claim back too', async () => {
  const failing: CustomerSecrets = {
    secretFor: () => Promise.reject(new Error('The keys are out of reach')),
  };
  const invoices = new InvoiceService(
    rig.invoiceStore,
    oneAccount(new ProcessingAdapter(rig.client)),
    timing(),
    {
      clientSecrets: failing,
    },
  );

  await expect(invoices.checkout(checkoutRequest('unsent-3'))).rejects.toThrow('The keys are out of reach');

  expect(await rig.invoiceStore.get('unsent-3')).toMatchObject({ phase: 'unsent' });
  const creates = (await rig.control('GET', '/requests?path=/v2/invoices/create')).requests as unknown[];
  expect(JSON.stringify(creates)).not.toContain('unsent-3');
});
