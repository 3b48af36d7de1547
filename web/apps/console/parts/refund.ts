// An invoice's refunds and the refund dialog, through POST /invoices/{foreign_id}/refunds and the view's
// `refundable` and `refunds`. A refund debits the store's balance in the order's credited currency (`refundable`'s),
// and the customer receives the currency they paid in unless the operator names another.
import { el, show } from '../../shared/dom';
import { invoicePath, type Api, type InvoiceView, type RefundView } from './api';
import { APPROVAL_HINT, money, plainAmount, refundWords, time } from './format';
import { confirmDialog, facts, table } from './page';

type Refundable = NonNullable<InvoiceView['refundable']>;

interface RefundForm {
  amount: string;
  currency: string;
  address: string;
}

/** A refund sent without an answer that it was made: its id, and the form it was sent with. */
interface Unanswered {
  id: string;
  form: RefundForm;
}

/**
 * Per invoice of a store (unansweredKey), until an answer says it was made: the refund last sent. The dialog, even
 * opened anew, shows it again and repeats its id for the same form, so that a lost answer cannot become a second
 * refund.
 */
const unanswered = new Map<string, Unanswered>();

/** Two stores may each have an order of the same foreign_id. */
const unansweredKey = (api: Api, invoice: InvoiceView) =>
  JSON.stringify([api.store ?? '', invoice.foreign_id]);

/** The invoice's refunds section, or null for an order that has none and can have none. */
export function refundsSection(
  invoice: InvoiceView,
  api: Api,
  onRefunded: (message: string) => Promise<HTMLElement>,
): HTMLElement | null {
  const { refundable, refunds } = invoice;
  if (!refundable && refunds.length === 0) return null;
  const canRefund = refundable !== null && /[1-9]/.test(refundable.amount);
  const button = el('button', { type: 'button', class: 'button' }, 'Refund…');
  button.addEventListener('click', () => refundDialog(invoice, refundable!, api, onRefunded));
  return el(
    'section',
    { 'aria-labelledby': 'refunds-title', class: 'panel' },
    el('h2', { id: 'refunds-title' }, 'Refunds'),
    refundable && el('p', {}, `Refundable: ${money(refundable.amount, refundable.currency)}`),
    canRefund && button,
    refunds.length > 0
      ? table(
          'Refunds of this invoice',
          ['Refund', 'Amount', 'Paid out in', 'Status', 'Created'],
          refunds.map((refund) => [
            refund.foreign_id,
            el('span', { class: 'amount' }, money(refund.debited_amount, refund.debited_currency)),
            refund.currency,
            refundStatus(refund, api, onRefunded),
            time(refund.created_at),
          ]),
        )
      : el('p', { class: 'empty' }, 'No refunds yet.'),
  );
}

type RefundEntry = InvoiceView['refunds'][number];

/**
 * The refund's status. One the order still counts is read in full (the refund's route asks the payment service), so
 * that one awaiting approval says what the owner must do. In the sandbox, buttons end it as the payment service or
 * another owner would (docs/sandbox.md), through the demo store's backend, which alone reaches the sandbox.
 */
function refundStatus(
  refund: RefundEntry,
  api: Api,
  onRefunded: (message: string) => Promise<HTMLElement>,
): HTMLElement {
  const cell = el('span', {}, refundWords(refund.status));
  if (refund.status !== 'pending') return cell;
  const path = `/refunds/${encodeURIComponent(refund.foreign_id)}`;
  // A link just made is shown at once, from the answer that made it.
  const made = claimsMade.get(refund.foreign_id);
  if (made) show(cell, refundWords('awaiting_claim'), claimLink(refund.foreign_id, made, api, onRefunded));
  void Promise.all([api.get<RefundView>(path).catch(() => undefined), inSandbox()]).then(
    ([view, sandbox]) => {
      const awaiting = view?.status === 'awaiting_approval';
      if (view?.status === 'awaiting_claim') {
        const url = view.claim_url ?? made?.url;
        if (!made && url) {
          const link = { url, days: linkDays(view) };
          show(cell, refundWords(view.status), claimLink(refund.foreign_id, link, api, onRefunded));
        } else if (!url) {
          show(cell, refundWords(view.status));
        }
        return;
      }
      claimsMade.delete(refund.foreign_id);
      if (view && view.status !== 'pending') show(cell, refundWords(view.status));
      if (awaiting) cell.append(el('span', { class: 'hint' }, ` ${APPROVAL_HINT}`));
      if (!sandbox || view?.final) return;
      const end = (how: SandboxStep, label: string) => {
        const button = el(
          'button',
          { type: 'button', class: 'button', 'aria-label': `${label} refund ${refund.foreign_id} (sandbox)` },
          label,
        );
        button.addEventListener('click', async () => {
          button.disabled = true;
          const step = `/demo/api/refunds/${encodeURIComponent(refund.foreign_id)}/${how}`;
          const answer = await fetch(step, { method: 'POST' }).catch(() => undefined);
          // The refund's own route asks the payment service at once, rather than waiting for its callback.
          if (answer?.ok) await api.get(path).catch(() => undefined);
          await onRefunded(
            answer?.ok
              ? `Refund ${refund.foreign_id} ${SANDBOX_DONE[how]} in the sandbox.`
              : `The sandbox could not end refund ${refund.foreign_id}.`,
          );
        });
        return button;
      };
      if (awaiting) cell.append(' ', end('approve', 'Approve'), ' ', end('decline', 'Decline'));
      else cell.append(' ', end('complete', 'Complete'), ' ', end('fail', 'Fail'));
    },
  );
  return cell;
}

/** An open claim link: where the customer claims the refund, and for how many days from its making it works. */
interface OpenLink {
  url: string;
  days: number;
}

/** The claim links this console made, by refund id, shown before the refund's own view is read again. */
const claimsMade = new Map<string, OpenLink>();

function linkDays(view: RefundView): number {
  const expires = view.claim_expires_at === null ? NaN : Date.parse(view.claim_expires_at);
  return Math.round((expires - Date.parse(view.created_at)) / 86_400_000);
}

/** The claim link with a Copy button, and a Cancel link action that asks first. */
function claimLink(
  foreignId: string,
  link: OpenLink,
  api: Api,
  onRefunded: (message: string) => Promise<HTMLElement>,
): HTMLElement {
  const id = `claim-link-${foreignId}`;
  const input = el('input', { id, class: 'claim-url', readonly: '', spellcheck: 'false' });
  input.value = link.url;
  const copied = el('span', { class: 'hint', role: 'status' });
  const copy = el(
    'button',
    {
      type: 'button',
      class: 'button button-small',
      'data-claim-copy': foreignId,
      'aria-label': `Copy claim link of refund ${foreignId}`,
    },
    'Copy',
  );
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(link.url);
      show(copied, 'Claim link copied.');
    } catch {
      input.select();
      show(copied, 'Copying failed: the link is selected, copy it yourself.');
    }
  });
  const cancel = el(
    'button',
    {
      type: 'button',
      class: 'button button-small button-danger',
      'aria-label': `Cancel link of refund ${foreignId}`,
    },
    'Cancel link',
  );
  cancel.addEventListener('click', () =>
    confirmDialog({
      title: `Cancel the claim link of refund ${foreignId}?`,
      body: [
        el(
          'p',
          {},
          'The customer will no longer be able to claim this refund with the link, and its amount can be refunded again. This cannot be undone.',
        ),
      ],
      confirm: 'Yes, cancel link',
      dismiss: 'Keep link',
      destructive: true,
      action: async () => {
        await api.post<RefundView>(`/refunds/${encodeURIComponent(foreignId)}/cancel-claim`);
        claimsMade.delete(foreignId);
        return onRefunded(`The claim link of refund ${foreignId} is cancelled.`);
      },
    }),
  );
  return el(
    'span',
    { class: 'claim-link' },
    el(
      'label',
      { for: id },
      'Claim link',
      el('span', { class: 'visually-hidden' }, ` of refund ${foreignId}`),
    ),
    el('span', { class: 'claim-link-row' }, input, copy, cancel),
    el(
      'span',
      { class: 'hint' },
      `Send this link to your customer; it works for ${link.days} ${link.days === 1 ? 'day' : 'days'}.`,
    ),
    copied,
  );
}

type SandboxStep = 'complete' | 'fail' | 'approve' | 'decline';

const SANDBOX_DONE: Record<SandboxStep, string> = {
  complete: 'sent',
  fail: 'failed',
  approve: 'approved',
  decline: 'declined',
};

let sandboxKnown: Promise<boolean> | undefined;

/** Whether `npm start` runs the payment service's sandbox here; asked once. Never in AWS, which has no store server. */
function inSandbox(): Promise<boolean> {
  sandboxKnown ??= fetch('/demo/api/sandbox', { cache: 'no-store' })
    .then(async (answer) => answer.ok && ((await answer.json()) as { sandbox?: boolean }).sandbox === true)
    .catch(() => false);
  return sandboxKnown;
}

function refundDialog(
  invoice: InvoiceView,
  refundable: Refundable,
  api: Api,
  onRefunded: (message: string) => Promise<HTMLElement>,
): void {
  const key = unansweredKey(api, invoice);
  const pending = unanswered.get(key);
  const amount = field(
    'refund-amount',
    `Amount (${refundable.currency})`,
    pending?.form.amount ?? plainAmount(refundable.amount, refundable.currency),
    { inputmode: 'decimal' },
  );
  const currency = field(
    'refund-currency',
    'Customer receives',
    pending?.form.currency ?? invoice.pay_currency ?? '',
    {},
  );
  const address = field('refund-address', 'Destination address', pending?.form.address ?? '', {
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const form = (): RefundForm => ({
    amount: amount.input.value.trim(),
    currency: currency.input.value.trim(),
    address: address.input.value.trim(),
  });
  // Confirming the same refund again, after a lost answer, repeats its id and so cannot send a second refund; a
  // changed form is another refund, with an id of its own.
  const idOfForm = () => {
    const last = unanswered.get(key);
    return last && JSON.stringify(form()) === JSON.stringify(last.form) ? last.id : newRefundId();
  };
  const refundId = el('span', {}, idOfForm());
  for (const { input } of [amount, currency, address]) {
    input.addEventListener('input', () => show(refundId, idOfForm()));
  }
  // Without an address the refund waits for the customer's, given through a claim link: the same form, sent by
  // this button instead, with the address left out.
  let byLink = false;
  const claimButton = el('button', { type: 'button', class: 'button' }, 'Send a claim link instead');
  claimButton.addEventListener('click', () => {
    // A claim is another refund than one to the address typed: it takes an id of its own.
    if (address.input.value) {
      address.input.value = '';
      show(refundId, idOfForm());
    }
    address.input.required = false;
    byLink = true;
    claimButton.closest('form')?.requestSubmit();
    byLink = false;
    address.input.required = true;
  });
  confirmDialog({
    title: `Refund invoice ${invoice.foreign_id}`,
    body: [
      el('p', {}, `Up to ${money(refundable.amount, refundable.currency)} can be refunded.`),
      facts([['Refund id', refundId]]),
      amount.wrapper,
      currency.wrapper,
      address.wrapper,
      el(
        'p',
        { class: 'claim-choice' },
        claimButton,
        el('span', { class: 'hint' }, 'No address? The customer gives it on a page the link opens.'),
      ),
    ],
    confirm: 'Send refund',
    dismiss: 'Close',
    destructive: true,
    action: async () => {
      const claim = byLink;
      claimButton.disabled = true;
      const sent = form();
      const id = refundId.textContent!;
      unanswered.set(key, { id, form: sent });
      try {
        const made = await api.post<RefundView>(invoicePath(invoice.foreign_id, 'refunds'), {
          foreign_id: id,
          ...(claim ? {} : { address: sent.address }),
          debited_amount: sent.amount,
          ...(sent.currency ? { currency: sent.currency } : {}),
        });
        unanswered.delete(key);
        const amountText = money(sent.amount, refundable.currency);
        if (!claim || !made.claim_url) return await onRefunded(`Refund of ${amountText} sent.`);
        claimsMade.set(id, { url: made.claim_url, days: linkDays(made) });
        await onRefunded(`Claim link for a refund of ${amountText} made.`);
        // The new link's Copy button takes the focus: copying it is what the operator does next.
        return document.querySelector<HTMLElement>(`[data-claim-copy="${CSS.escape(id)}"]`) ?? undefined;
      } finally {
        claimButton.disabled = false;
      }
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
