import { fixed8 } from './money';
import type { InvoiceRecord } from './state';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The customer-facing page behind an invoice's `url`: what to pay and where, and the current status. */
export function payPage(invoice: InvoiceRecord): string {
  const rows: [string, string][] = [
    ['Invoice', `${invoice.id} (${invoice.foreignId})`],
    ['Amount', `${fixed8(invoice.amount)} ${invoice.currency.code}`],
    [
      'Pay',
      invoice.senderAmount
        ? `${fixed8(invoice.senderAmount)} ${invoice.senderCurrency?.code}`
        : 'any currency',
    ],
    ['Address', invoice.address ? invoice.address.address : 'assigned when you choose a currency'],
    ...(invoice.address?.tag ? [['Tag', invoice.address.tag] as [string, string]] : []),
    ['Status', invoice.status],
  ];
  const table = rows
    .map(([name, value]) => `<tr><th>${name}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(invoice.title)}</title></head>
<body><h1>${escapeHtml(invoice.title)}</h1><table>${table}</table>
<p>Sandbox: pay with POST /_sandbox/invoices/{foreign_id}/pay.</p></body></html>`;
}
