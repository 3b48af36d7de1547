// The reads of one invoice that answer from the table alone: the store's poll and the customer's view.
import { customerSecretMatches } from './customer-secret';
import { NotFoundError } from './errors';
import type { InvoiceRecord } from './model';
import type { VersionedStore } from './ports';
import { readRecord } from './records';

/** The poll reads the store alone and never calls the service. */
export function readInvoice(
  invoices: VersionedStore<InvoiceRecord>,
  foreignId: string,
): Promise<InvoiceRecord> {
  return readRecord(invoices, foreignId, 'Invoice');
}

/**
 * The customer's read: the same one read, opened only by the invoice's client secret. A wrong or missing secret
 * is answered as a missing invoice, so that a guess learns nothing of which orders exist.
 */
export async function readInvoiceForCustomer(
  invoices: VersionedStore<InvoiceRecord>,
  foreignId: string,
  clientSecret: string | undefined,
): Promise<InvoiceRecord> {
  const record = await invoices.get(foreignId);
  // Checked for a missing invoice too, so that the time taken is the same.
  const matches = customerSecretMatches(clientSecret, record?.clientSecretHash);
  if (!record || !matches) throw new NotFoundError('Invoice');
  return record;
}
