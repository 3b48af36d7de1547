// One invoice: its amounts, what the customer paid, its history, metadata and refunds; cancel while it is open.
import { el, show } from '../../shared/dom';
import { invoicePath, type InvoiceView } from './api';
import { EXCEPTION_WORDS, historyWords, money, sourceWords, time } from './format';
import { confirmDialog, facts, recordHead, statusBadge, table } from './page';
import { refundsSection } from './refund';
import { heading, type ViewContext } from './view';

export async function invoiceView(context: ViewContext, foreignId: string): Promise<void> {
  const { api, feedback, root } = context;
  show(root, backLink(), heading(`Invoice ${foreignId}`));
  const invoice = await feedback.load(root, 'Loading the invoice…', () =>
    api.get<InvoiceView>(invoicePath(foreignId)),
  );
  if (invoice) {
    const h1 = draw(context, invoice);
    // The heading that had the focus is gone; unless the operator has moved on, its successor takes it.
    if (document.activeElement === document.body) h1.focus();
    feedback.say(`Invoice ${foreignId} loaded.`);
  }
}

/** Draws the invoice; returns its heading, where the focus goes after an action redrew the page. */
function draw(context: ViewContext, invoice: InvoiceView): HTMLElement {
  const { api, feedback, root } = context;
  const h1 = heading(invoice.title);
  const afterRefund = async (message: string) => {
    const refreshed = await api.get<InvoiceView>(invoicePath(invoice.foreign_id));
    feedback.say(message);
    return draw(context, refreshed);
  };
  show(
    root,
    backLink(),
    recordHead(
      h1,
      [
        `Order ${invoice.foreign_id} · `,
        statusBadge(invoice.status),
        invoice.exception &&
          el('span', { class: 'badge badge-exception' }, EXCEPTION_WORDS[invoice.exception]),
      ],
      !invoice.final && cancelButton(context, invoice),
    ),
    paidAfterCancel(invoice),
    el(
      'div',
      { class: 'columns' },
      section('Amounts', facts(amounts(invoice))),
      section('Payment', facts(payment(invoice))),
    ),
    paymentsSection(invoice),
    section(
      'History',
      invoice.history.length === 0
        ? el('p', { class: 'empty' }, 'Nothing heard from the payment service yet.')
        : table(
            'What happened, oldest first',
            ['What happened', 'When', 'Heard from'],
            invoice.history.map((change) => [
              historyWords(change.service_status, change.source),
              time(change.at),
              sourceWords(change.source),
            ]),
          ),
    ),
    section(
      'Metadata',
      Object.keys(invoice.metadata).length === 0
        ? el('p', { class: 'empty' }, 'None given at checkout.')
        : table('The store’s metadata', ['Key', 'Value'], Object.entries(invoice.metadata)),
    ),
    refundsSection(invoice, api, afterRefund),
  );
  return h1;
}

/** Money that came as or after the invoice was cancelled: the operator must see it and decide what to do. */
function paidAfterCancel(invoice: InvoiceView): HTMLElement | null {
  if (invoice.status !== 'cancelled' || invoice.exception !== 'paid_late') return null;
  // Less than was due is the payment service's to return (it e-mails the customer): the refund route says so.
  const short = invoice.not_refundable_reason === 'short_of_due';
  const credited =
    invoice.net_amount !== null && /[1-9]/.test(invoice.net_amount)
      ? ` The payment service credited ${money(invoice.net_amount, invoice.net_currency)}: refund it below, or fulfil the order.`
      : ' The payment service has not credited it yet; this page shows the credit once it does.';
  const next = short
    ? ' It is less than was due: the payment service returns it to the customer itself, so it is not refunded here.'
    : credited;
  return el(
    'p',
    { class: 'notice notice-warning' },
    `The customer paid ${money(invoice.paid_amount, invoice.pay_currency)} after this invoice was cancelled.`,
    next,
  );
}

function cancelButton(context: ViewContext, invoice: InvoiceView): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'button button-danger' }, 'Cancel invoice…');
  button.addEventListener('click', () =>
    confirmDialog({
      title: `Cancel invoice ${invoice.foreign_id}?`,
      body: [
        el(
          'p',
          {},
          `The customer will no longer be able to pay ${money(invoice.amount, invoice.currency)} for “`,
          invoice.title,
          '”. This cannot be undone.',
        ),
        ...(invoice.pay_amount === null
          ? []
          : [
              facts([
                ['Amount due', money(invoice.pay_amount, invoice.pay_currency)],
                ['Paid so far', money(invoice.paid_amount, invoice.pay_currency)],
              ]),
            ]),
      ],
      confirm: 'Yes, cancel invoice',
      dismiss: 'Keep invoice',
      destructive: true,
      action: async () => {
        const cancelled = await context.api.post<InvoiceView>(invoicePath(invoice.foreign_id, 'cancel'));
        context.feedback.say(`Invoice ${invoice.foreign_id} is cancelled.`);
        return draw(context, cancelled);
      },
    }),
  );
  return button;
}

function amounts(invoice: InvoiceView): Array<[string, string]> {
  return [
    ['Order amount', money(invoice.amount, invoice.currency)],
    ['Net credited', money(invoice.net_amount, invoice.net_currency)],
    ['Fees', invoice.fees.map((fee) => money(fee.amount, fee.currency)).join(', ') || '—'],
    ['Created', time(invoice.created_at)],
    ['Last change', time(invoice.updated_at)],
  ];
}

function payment(invoice: InvoiceView): Array<[string, string]> {
  const pay = (value: string | null) => money(value, invoice.pay_currency);
  return [
    ['Due', pay(invoice.pay_amount)],
    ['Paid', pay(invoice.paid_amount)],
    // Nothing is owed on an order that is over: a cancelled or expired invoice can no longer be paid.
    ...(invoice.final ? [] : [['Still to pay', pay(invoice.owed_amount)] as [string, string]]),
    ['Address', invoice.pay_address ?? '—'],
    ...(invoice.pay_tag ? [['Tag or memo', invoice.pay_tag] as [string, string]] : []),
    ['Expires', time(invoice.expires_at)],
    ...(invoice.failure_message ? [['Failure', invoice.failure_message] as [string, string]] : []),
  ];
}

/** The customer's deposits, each with its transaction on a block explorer: what support checks first. */
function paymentsSection(invoice: InvoiceView): HTMLElement {
  return section(
    'Transactions',
    invoice.payments.length === 0
      ? el('p', { class: 'empty' }, 'No transaction reported yet.')
      : table(
          'The customer’s transactions, first seen first',
          ['Transaction', 'Amount', 'Confirmations', 'Address', 'Seen'],
          invoice.payments.map((payment) => [
            payment.explorer_url
              ? el(
                  'a',
                  { href: payment.explorer_url, class: 'txid', target: '_blank', rel: 'noopener noreferrer' },
                  payment.txid,
                )
              : el('span', { class: 'txid' }, payment.txid),
            money(payment.amount, payment.currency),
            String(payment.confirmations),
            el('span', { class: 'txid' }, payment.address || '—'),
            time(payment.seen_at),
          ]),
        ),
  );
}

function section(title: string, ...content: Node[]): HTMLElement {
  const id = `section-${title.toLowerCase()}`;
  return el('section', { class: 'panel', 'aria-labelledby': id }, el('h2', { id }, title), ...content);
}

function backLink(): HTMLAnchorElement {
  return el('a', { href: '#invoices', class: 'back' }, '← All invoices');
}
