// Records as the store holds them, for unit tests that start from one.
import type { InvoiceRecord } from '../../domain/model';

/**
 * An invoice sent to the service and not yet answered (pending: no invoice, payment or event), but for
 * `overrides`.
 */
export function sentInvoice(foreignId: string, overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  return {
    foreignId,
    version: 1,
    phase: 'sent',
    request: {},
    claimedAt: 0,
    status: 'pending',
    error: null,
    history: [],
    createdAt: 0,
    updatedAt: 0,
    attempt: 1,
    invoice: null,
    payment: null,
    cancelled: false,
    ...overrides,
  } as unknown as InvoiceRecord;
}
