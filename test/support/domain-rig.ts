import { oneAccount } from '../../domain/upstream';
import { InvoiceService } from '../../domain/invoices';
import type { CheckoutRequest, InvoiceRecord, RefundRecord } from '../../domain/model';
import { nextSweepAt, sweep, type SweptStores, type SweepTiming } from '../../domain/reconcile';
import { RefundService } from '../../domain/refunds';
import { ProcessingAdapter } from '../../processing/adapter';
import { ProcessingClient } from '../../processing/client';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { MemoryStore } from './memory-store';

/** The deployed defaults (RECONCILE_STALE_SECONDS, RECONCILE_EXPIRY_GRACE_SECONDS). */
export const SWEEP_TIMING: SweepTiming = { staleAfterMs: 300_000, expiryGraceMs: 60_000 };

export interface DomainRig {
  sandbox: Sandbox;
  /** The service's client in its own words, for what a test does at the service directly. */
  client: ProcessingClient;
  invoiceStore: MemoryStore<InvoiceRecord>;
  refundStore: MemoryStore<RefundRecord>;
  invoices: InvoiceService;
  refunds: RefundService;
  /** The one clock of the services, the sweep and the sandbox, in ms; tests move it. */
  clock: { ms: number };
  /** Runs the reconciliation sweep now, as the scheduled job does. */
  sweep(): ReturnType<typeof sweep>;
  /** Calls the sandbox's control API; throws unless it answers 2xx. */
  control(method: string, path: string, body?: object): Promise<any>;
  close(): Promise<void>;
}

/** One store's services as the sweep sees every store's: the domain tests' rigs hold one store. */
export function oneStore(invoices: InvoiceService, refunds: RefundService): SweptStores {
  return {
    dueInvoices: (limit, now) => invoices.listDue(limit, now),
    dueRefunds: (limit, now) => refunds.listDue(limit, now),
    invoicesFor: () => invoices,
    refundsFor: () => refunds,
  };
}

/**
 * The domain services over in-memory stores, talking to the sandbox through the real client over HTTP. The
 * sandbox posts no callbacks, as if every one were lost, and shares the test's clock.
 */
export async function startDomainRig(): Promise<DomainRig> {
  const clock = { ms: Date.UTC(2030, 0, 1) };
  const now = () => clock.ms;
  const sandbox = await startSandbox({ port: 0, now });
  const keys = { apiKey: sandbox.apiKey, secretKey: sandbox.secretKey };
  const client = new ProcessingClient({
    baseUrl: sandbox.url,
    keys: { get: async () => keys, refresh: async () => keys },
  });
  const invoiceStore = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  const refundStore = new MemoryStore<RefundRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  const timing = { now, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  const processing = new ProcessingAdapter(client);
  const invoices = new InvoiceService(invoiceStore, oneAccount(processing), timing);
  const refunds = new RefundService(refundStore, oneAccount(processing), timing, invoices);
  return {
    sandbox,
    client,
    invoiceStore,
    refundStore,
    invoices,
    refunds,
    clock,
    sweep: () =>
      sweep(oneStore(invoices, refunds), {
        ...SWEEP_TIMING,
        now,
        batch: 100,
        timeLeftMs: () => Infinity,
        recordReserveMs: 0,
      }),
    control: async (method, path, body) => {
      const response = await fetch(`${sandbox.url}/_sandbox${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body && JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`control ${method} ${path}: ${response.status}`);
      return response.json();
    },
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}

/** A checkout with a timer and a fixed payment currency; override fields per test. */
export function checkoutRequest(
  foreignId: string,
  overrides: Partial<CheckoutRequest> = {},
): CheckoutRequest {
  return {
    foreignId,
    amount: '25.5',
    currency: 'EUR',
    senderCurrency: 'BTC',
    title: `Order ${foreignId}`,
    email: 'customer@example.com',
    urlSuccess: 'https://shop.example/ok',
    urlFailed: 'https://shop.example/failed',
    timer: true,
    ...overrides,
  };
}
