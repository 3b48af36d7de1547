import type { InvoiceRecord } from '../../domain/model';
import { invoiceView } from '../../http/views';

const RELEASE_AT = 1_900_000_900;
const PAST_RELEASE_MS = (RELEASE_AT + 60) * 1000;

const invoice = (overrides: Partial<InvoiceRecord>): InvoiceRecord =>
  ({
    foreignId: 'order-1',
    phase: 'sent',
    request: { title: 'Order', currency: 'EUR', amount: '25.5' },
    invoice: { releaseAt: RELEASE_AT },
    status: 'pending',
    payment: null,
    cancelled: false,
    error: null,
    history: [],
    ...overrides,
  }) as InvoiceRecord;

describe('expired', () => {
  test('an invoice still waiting for payment past its release_at is expired', () => {
    expect(invoiceView(invoice({}), PAST_RELEASE_MS).expired).toBe(true);
    expect(invoiceView(invoice({}), (RELEASE_AT - 1) * 1000).expired).toBe(false);
  });

  test('never once the service has seen a payment: it is confirming, or partly paid', () => {
    const partly = { currency: 'BTC', amount: '0.0002', remainingAmount: '0.0002' };
    expect(invoiceView(invoice({ status: 'processing' }), PAST_RELEASE_MS).expired).toBe(false);
    expect(invoiceView(invoice({ payment: partly }), PAST_RELEASE_MS).expired).toBe(false);
  });

  test('never for a final invoice', () => {
    expect(invoiceView(invoice({ status: 'confirmed' }), PAST_RELEASE_MS).expired).toBe(false);
    expect(invoiceView(invoice({ status: 'failed' }), PAST_RELEASE_MS).expired).toBe(false);
  });
});
