// An invoice's refunds and the refund dialog, against POST /invoices/{foreign_id}/refunds and the view's
// `refundable` and `refunds`. Until that route is deployed the view has neither, and this part shows nothing.
import { el, show } from '../../shared/dom';
import { invoicePath, type Api, type InvoiceView } from './api';
import { money, time, words } from './format';
import { confirmDialog, facts, table } from './page';

export interface RefundFacts {
  /** What may still be refunded, in the invoice's currency. */
  refundable?: { amount: string; currency: string };
  refunds?: Array<{
    foreign_id: string;
    amount: string;
    currency: string;
    status: string;
    created_at: string;
  }>;
}

/** The invoice's refunds section, or null when the API does not tell refunds. */
export function refundsSection(
  invoice: InvoiceView & RefundFacts,
  api: Api,
  onRefunded: (message: string) => Promise<HTMLElement>,
): HTMLElement | null {
  const { refundable, refunds } = invoice;
  if (!refundable && !refunds) return null;
  const canRefund = refundable !== undefined && /[1-9]/.test(refundable.amount);
  const button = el('button', { type: 'button', class: 'button' }, 'Refund…');
  button.addEventListener('click', () => refundDialog(invoice, refundable!, api, onRefunded));
  return el(
    'section',
    { 'aria-labelledby': 'refunds-title', class: 'panel' },
    el('h2', { id: 'refunds-title' }, 'Refunds'),
    refundable && el('p', {}, `Refundable: ${money(refundable.amount, refundable.currency)}`),
    canRefund && button,
    refunds && refunds.length > 0
      ? table(
          'Refunds of this invoice',
          ['Refund', 'Amount', 'Status', 'Created'],
          refunds.map((refund) => [
            refund.foreign_id,
            el('span', { class: 'amount' }, money(refund.amount, refund.currency)),
            words(refund.status),
            time(refund.created_at),
          ]),
        )
      : el('p', { class: 'empty' }, 'No refunds yet.'),
  );
}

function refundDialog(
  invoice: InvoiceView,
  refundable: NonNullable<RefundFacts['refundable']>,
  api: Api,
  onRefunded: (message: string) => Promise<HTMLElement>,
): void {
  const amount = field('refund-amount', 'Amount', refundable.amount, { inputmode: 'decimal' });
  const currency = field('refund-currency', 'Currency', refundable.currency, {});
  const address = field('refund-address', 'Destination address', '', {
    autocomplete: 'off',
    spellcheck: 'false',
  });
  // Confirming the same refund again, after a lost answer, repeats its id and so cannot send a second refund; a
  // changed form is another refund, with an id of its own.
  const refundId = el('span', {}, newRefundId());
  for (const { input } of [amount, currency, address]) {
    input.addEventListener('input', () => show(refundId, newRefundId()));
  }
  confirmDialog({
    title: `Refund invoice ${invoice.foreign_id}`,
    body: [
      el('p', {}, `Up to ${money(refundable.amount, refundable.currency)} can be refunded.`),
      facts([
        ['Refundable', `${refundable.amount} ${refundable.currency}`],
        ['Refund id', refundId],
      ]),
      amount.wrapper,
      currency.wrapper,
      address.wrapper,
    ],
    confirm: 'Send refund',
    dismiss: 'Keep the money',
    destructive: true,
    action: async () => {
      await api.post(invoicePath(invoice.foreign_id, 'refunds'), {
        foreign_id: refundId.textContent,
        address: address.input.value.trim(),
        amount: amount.input.value.trim(),
        currency: currency.input.value.trim(),
      });
      return onRefunded(`Refund of ${money(amount.input.value.trim(), currency.input.value.trim())} sent.`);
    },
  });
}

function newRefundId(): string {
  return `refund-${crypto.randomUUID()}`;
}

function field(id: string, label: string, value: string, attributes: Record<string, string>) {
  const input = el('input', { id, name: id, required: '', ...attributes });
  input.value = value;
  return { input, wrapper: el('div', { class: 'field' }, el('label', { for: id }, label), input) };
}
