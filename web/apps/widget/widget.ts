// The checkout widget: one ES module a shop's page imports, `mount(element, { invoiceUrl, clientSecret })`. It
// shows what to pay and where, follows the invoice with the customer's view (GET /public/invoices/{foreign_id})
// and sends the customer back to the shop once it is final. Every text from the shop or the service goes in as
// a text node (shared/dom.ts); the client secret goes in a header, never in a URL.
import { el, show } from '../shared/dom';
import { qrSvg } from './parts/qr';
import { EN, type Strings } from './parts/strings';

export { EN, type Strings };

export interface MountOptions {
  /** The invoice's customer view, `<API>/public/invoices/<foreign_id>`. */
  invoiceUrl: string;
  /** The checkout's `client_secret` for this invoice. */
  clientSecret: string;
  /** The shop's name, shown above the order so that the customer knows whom they pay. */
  merchantName?: string;
  /** Another language: a table with the keys of `EN`. */
  strings?: Strings;
  /** How long the final status shows before the customer is sent back to the shop; 5 s unless given. */
  redirectAfterMs?: number;
}

export interface Mounted {
  /** Stops polling and clears the element. */
  destroy(): void;
}

type Status = keyof Strings['status'];
type Exception = keyof Strings['exception'];
type Next = keyof Strings['next'];

/** GET /public/invoices/{foreign_id}'s answer (PublicInvoiceView in openapi.json). */
interface PublicInvoice {
  status: Status;
  final: boolean;
  exception: Exception | null;
  title: string;
  amount: string;
  currency: string;
  pay_currency: string | null;
  pay_amount: string | null;
  owed_amount: string | null;
  pay_address: string | null;
  pay_tag: string | null;
  payment_uri: string | null;
  payment_url: string | null;
  rate: string | null;
  confirmations: number | null;
  payments: Array<{ txid: string; explorer_url: string | null }>;
  expires_at: string | null;
  url_success: string;
  url_failed: string;
}

// Polls start quick while the customer looks at the page, slow down while nothing changes, and back off further
// when the API is busy or unreachable.
const FIRST_WAIT_MS = 2_000;
const QUIET_WAIT_MS = 10_000;
const TROUBLE_WAIT_MS = 60_000;
const SECOND = 1_000;

export function mount(element: Element, options: MountOptions): Mounted {
  const text = options.strings ?? EN;
  const redirectAfterMs = options.redirectAfterMs ?? 5_000;
  const statusLine = el('p', { class: 'pw-status', role: 'status', 'aria-live': 'polite' }, text.loading);
  const details = el('div', { class: 'pw-details' });
  const copyNote = el('p', { class: 'pw-note', role: 'status', 'aria-live': 'polite' });
  const heading = el('h2', { class: 'pw-title' });
  const root = el(
    'section',
    { class: 'pw-widget', 'aria-label': text.region, 'data-state': 'loading' },
    options.merchantName && el('p', { class: 'pw-merchant' }, options.merchantName),
    heading,
    statusLine,
    details,
    copyNote,
  );
  show(element, root);

  let invoice: PublicInvoice | undefined;
  let etag: string | undefined;
  let wait = FIRST_WAIT_MS;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let redirectAt: number | undefined;
  let stopped = false;
  const countdown = el('span', { class: 'pw-countdown' });
  const redirectNote = el('span');

  const schedule = (ms: number) => {
    clearTimeout(pollTimer);
    pollTimer = stopped || document.hidden ? undefined : setTimeout(poll, ms);
  };

  async function poll(): Promise<void> {
    let answer: Response;
    try {
      answer = await fetch(options.invoiceUrl, {
        headers: { 'x-client-secret': options.clientSecret, ...(etag && { 'if-none-match': etag }) },
        cache: 'no-store',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch {
      return trouble(undefined);
    }
    if (stopped) return;
    if (answer.status === 200) {
      etag = answer.headers.get('etag') ?? undefined;
      invoice = (await answer.json()) as PublicInvoice;
      wait = FIRST_WAIT_MS;
      render(invoice);
      if (invoice.final) return finish(invoice);
    } else if (answer.status === 304) {
      wait = Math.min(wait * 1.5, QUIET_WAIT_MS);
    } else if (answer.status === 404) {
      stopped = true;
      root.dataset.state = 'not-found';
      show(statusLine, text.notFound);
      return;
    } else {
      return trouble(answer);
    }
    schedule(wait);
  }

  function trouble(answer: Response | undefined): void {
    if (stopped) return;
    if (!invoice) show(statusLine, text.retrying);
    const retryAfter = Number(answer?.headers.get('retry-after')) * SECOND || 0;
    wait = Math.min(Math.max(wait * 2, retryAfter), TROUBLE_WAIT_MS);
    schedule(wait);
  }

  function render(current: PublicInvoice): void {
    root.dataset.state = current.status;
    show(heading, current.title);
    const words = current.exception
      ? `${text.status[current.status]} ${text.exception[current.exception]}`
      : text.status[current.status];
    // A final status says what happened, then what the customer should do now.
    const next = current.final && (text.next[current.exception as Next] ?? text.next[current.status as Next]);
    show(statusLine, el('strong', {}, words), next && ' ', next && el('span', { class: 'pw-next' }, next));
    // Focus stays on the button the customer is on when the details are drawn again.
    const focused = document.activeElement?.getAttribute('data-copy');
    const confirming = current.status === 'confirming' && current.exception !== 'paid_partial';
    const drawn = current.final
      ? [orderTotal(current), ...proof(current)]
      : confirming
        ? seen(current)
        : payment(current);
    show(details, ...drawn);
    if (focused) details.querySelector<HTMLElement>(`[data-copy="${focused}"]`)?.focus();
  }

  function orderTotal(current: PublicInvoice): HTMLElement {
    return el('p', { class: 'pw-total' }, `${text.orderTotal}: ${short(current.amount)} ${current.currency}`);
  }

  /** Each transaction the customer sent, linked to a block explorer where there is one: their proof of payment. */
  function proof(current: PublicInvoice): HTMLElement[] {
    const payments = current.payments ?? [];
    if (payments.length === 0) return [];
    const items = payments.map(({ txid, explorer_url }, index) => {
      const words = payments.length === 1 ? text.seePayment : text.seePaymentPart(index + 1);
      const shown = el('span', { class: 'pw-txid' }, txid);
      return explorer_url && isWebLink(explorer_url)
        ? el('li', {}, externalLink(explorer_url, words), ' ', shown)
        : el('li', {}, `${text.transaction} `, shown);
    });
    return [el('ul', { class: 'pw-payments' }, ...items)];
  }

  /** The order's amount in its own currency and the rate the crypto amount was priced at. */
  function price(current: PublicInvoice): HTMLElement[] {
    const total = `${short(current.amount)} ${current.currency}`;
    return [
      el('dt', {}, text.orderTotal),
      el('dd', {}, el('span', { class: 'pw-value' }, total)),
      ...(current.rate && current.pay_currency
        ? [
            el('dt', {}, text.rate),
            el('dd', {}, `1 ${current.pay_currency} = ${grouped(current.rate)} ${current.currency}`),
          ]
        : []),
    ];
  }

  /** While the payment confirms: what was seen, the confirmations the service reported, and the time it has. */
  function seen(current: PublicInvoice): Node[] {
    const { pay_amount, pay_currency, confirmations } = current;
    const facts = el(
      'dl',
      { class: 'pw-facts' },
      ...(pay_amount && pay_currency
        ? [el('dt', {}, text.paymentSeen), el('dd', {}, `${short(pay_amount)} ${pay_currency}`)]
        : []),
      el('dt', {}, text.confirmations),
      el(
        'dd',
        { class: 'pw-confirmations' },
        confirmations === null ? text.noConfirmations : `${confirmations}`,
      ),
      ...(current.expires_at ? [el('dt', {}, text.timeToConfirm), el('dd', {}, countdown)] : []),
      ...price(current),
    );
    tick();
    return [facts, el('p', { class: 'pw-total' }, text.confirmationsNote)];
  }

  function payment(current: PublicInvoice): Node[] {
    const { pay_amount, pay_currency, pay_address, pay_tag, payment_uri, payment_url } = current;
    if (pay_amount === null || pay_currency === null || pay_address === null) {
      return [
        orderTotal(current),
        el('p', {}, text.choosePayment),
        payment_url && isWebLink(payment_url) && link(payment_url, text.openPaymentPage, 'pw-button'),
      ].filter((node): node is HTMLElement => Boolean(node));
    }
    const owed =
      current.exception === 'paid_partial' && current.owed_amount ? current.owed_amount : pay_amount;
    const due = short(owed);
    const facts = el(
      'dl',
      { class: 'pw-facts' },
      ...fact(text.amountToPay, `${due} ${pay_currency}`, due, text.copyAmount, 'amount'),
      ...fact(text.address, pay_address, pay_address, text.copyAddress, 'address'),
      ...(pay_tag ? fact(text.tag, pay_tag, pay_tag, text.copyTag, 'tag') : []),
      ...(current.expires_at ? [el('dt', {}, text.timeLeft), el('dd', {}, countdown)] : []),
      ...price(current),
    );
    tick();
    const qrText = payment_uri ?? pay_address;
    return [
      el('div', { class: 'pw-pay' }, qrSvg(qrText, text.qrLabel), facts),
      ...(payment_uri && isWalletLink(payment_uri) ? [link(payment_uri, text.openWallet, 'pw-button')] : []),
    ];
  }

  /** A term, its value as text, and a button that copies `value`; the button's name says what it copies. */
  function fact(term: string, shown: string, value: string, copyLabel: string, key: string): HTMLElement[] {
    const button = el('button', {
      type: 'button',
      class: 'pw-copy',
      'data-copy': key,
      'aria-label': copyLabel,
    });
    show(button, text.copy);
    button.addEventListener('click', () => void copy(value));
    return [el('dt', {}, term), el('dd', {}, el('span', { class: `pw-value pw-${key}` }, shown), button)];
  }

  async function copy(value: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(value);
      show(copyNote, text.copied);
    } catch {
      show(copyNote, text.copyFailed);
    }
  }

  function finish(current: PublicInvoice): void {
    stopped = true;
    clearTimeout(pollTimer);
    const target = current.status === 'paid' ? current.url_success : current.url_failed;
    if (!isWebLink(target) || redirectAfterMs <= 0) return;
    redirectAt = Date.now() + redirectAfterMs;
    details.append(
      el('p', { class: 'pw-redirect' }, redirectNote, ' ', link(target, text.continueNow, 'pw-link')),
    );
    tick();
    setTimeout(() => window.location.assign(target), redirectAfterMs);
  }

  /** Once a second: the time left to pay, or to the redirect. */
  function tick(): void {
    const now = Date.now();
    if (redirectAt !== undefined) {
      show(redirectNote, text.redirecting(Math.max(0, Math.ceil((redirectAt - now) / SECOND))));
    } else if (invoice?.expires_at && !invoice.final) {
      const left = Math.max(0, Date.parse(invoice.expires_at) - now);
      show(countdown, clock(left));
      // The time ran out: look now for the status that follows, instead of at the next slow poll.
      if (left === 0 && wait > FIRST_WAIT_MS) {
        wait = FIRST_WAIT_MS;
        schedule(wait);
      }
    }
  }
  const ticker = setInterval(tick, SECOND);

  const onVisibility = () => {
    if (document.hidden) clearTimeout(pollTimer);
    else if (!stopped) void poll();
  };
  document.addEventListener('visibilitychange', onVisibility);
  void poll();

  return {
    destroy() {
      stopped = true;
      clearTimeout(pollTimer);
      clearInterval(ticker);
      document.removeEventListener('visibilitychange', onVisibility);
      element.replaceChildren();
    },
  };
}

function link(href: string, label: string, className: string): HTMLAnchorElement {
  return el('a', { href, class: className }, label);
}

/** A page of another site, opened beside the shop's so that the customer keeps their place. */
function externalLink(href: string, label: string): HTMLAnchorElement {
  return el('a', { href, class: 'pw-link', target: '_blank', rel: 'noopener noreferrer' }, label);
}

/** Only web pages: a URL from the shop or the service is never followed as `javascript:` or the like. */
function isWebLink(url: string): boolean {
  try {
    return ['https:', 'http:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

function isWalletLink(uri: string): boolean {
  return /^(bitcoin|litecoin|bitcoincash|dogecoin):[A-Za-z0-9]+(\?amount=[0-9.]+)?$/.test(uri);
}

/** An exact decimal without the zeros past its second fractional digit, as text: `25.50000000` is `25.50`. */
function short(amount: string): string {
  return amount.replace(/(\.\d\d\d*?)0+$/, '$1');
}

/** A decimal string's whole part in groups of three: `55555.56` is `55,555.56`. */
function grouped(amount: string): string {
  return amount.replace(/^\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
}

/** `m:ss`, or `h:mm:ss` from an hour up. */
function clock(ms: number): string {
  const total = Math.ceil(ms / SECOND);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}
