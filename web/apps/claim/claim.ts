// The refund claim page: the link a store sends its customer, `/claim/#<refund foreign_id>/<token>`. The token
// is read from the fragment, which no server or referrer sees, then taken out of the address bar, and sent to the
// API only in `X-Claim-Token`. The customer gives the address (and, where the store's travel rule asks, who
// receives the refund); the API sends the refund once however often the form comes, and this page follows it.
import { el, show } from '../shared/dom';

/** GET /public/refund-claims/{foreign_id}'s answer (ClaimView in openapi.json). */
interface ClaimView {
  store_name: string | null;
  travel_rule: 'off' | 'optional' | 'required';
  status: string;
  final: boolean;
  failure_message: string | null;
  debited_amount: string | null;
  debited_currency: string | null;
  currency: string | null;
  amount: string | null;
  address: string | null;
  expires_at: string | null;
}

interface ApiError {
  code: string;
  message: string;
  fields: Record<string, string>;
}

type Answer =
  { ok: true; view: ClaimView } | { ok: false; status: number; error: ApiError; retryAfter: number };

/** What each status means to the customer: where the refund is, and, once it is over, what to do. */
const STATUS_WORDS: Readonly<Record<string, string>> = {
  awaiting_claim: 'Enter the address where you want to receive your refund.',
  sending: 'Sending your refund…',
  pending: 'Your refund is on its way.',
  verifying: 'Your refund is on its way.',
  processing: 'Your refund is on its way.',
  awaiting_approval:
    'Your refund is waiting for approval at the payment service. This page shows when it is sent.',
  confirmed: 'Your refund has been sent.',
  failed: 'Your refund could not be sent. Please contact the store.',
  declined: 'Your refund was declined. Please contact the store.',
  cancelled: 'Your refund was cancelled by the payment service. Please contact the store.',
  rejected: 'Your refund could not be sent. Please contact the store.',
  claim_expired: 'This refund link has expired. Please contact the store for a new one.',
  claim_cancelled: 'The store has cancelled this refund link. Please contact the store.',
};

const POLL_MS = 3_000;
const TROUBLE_POLL_MS = 15_000;
/** The tab's copy of the link, so that a reload still opens it once the fragment is gone. */
const SESSION_KEY = 'refund-claim';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const heading = byId('heading');
const statusLine = byId('status');
const details = byId('details');

const link = readLink();
let view: ClaimView | undefined;
let form: ClaimForm | undefined;
let pollTimer: ReturnType<typeof setTimeout> | undefined;

/** `#<foreign_id>/<token>` from the address, then the fragment removed from it and from the tab's history. */
function readLink(): { foreignId: string; token: string } | undefined {
  const fragment = window.location.hash.slice(1);
  if (fragment) {
    history.replaceState(null, '', window.location.pathname + window.location.search);
    const parsed = parseLink(fragment);
    if (parsed) sessionStorage.setItem(SESSION_KEY, fragment);
    return parsed;
  }
  return parseLink(sessionStorage.getItem(SESSION_KEY) ?? '');
}

function parseLink(fragment: string): { foreignId: string; token: string } | undefined {
  const match = /^([A-Za-z0-9._:-]{1,64})\/(rc_[A-Za-z0-9!._~-]+)$/.exec(fragment);
  return match ? { foreignId: match[1], token: match[2] } : undefined;
}

async function call(method: 'GET' | 'POST', body?: unknown): Promise<Answer> {
  const response = await fetch(`/public/refund-claims/${encodeURIComponent(link!.foreignId)}`, {
    method,
    headers: {
      'x-claim-token': link!.token,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  });
  const parsed = (await response.json().catch(() => undefined)) as unknown;
  if (response.ok) return { ok: true, view: parsed as ClaimView };
  const error = (parsed as { error?: Partial<ApiError> } | undefined)?.error;
  return {
    ok: false,
    status: response.status,
    error: {
      code: error?.code ?? `http_${response.status}`,
      message: error?.message ?? '',
      fields: error?.fields ?? {},
    },
    retryAfter: Number(response.headers.get('retry-after')) || 1,
  };
}

/** One poll at a time is ever waiting: a submit's answer and a poll's may both ask for the next. */
function schedule(ms: number): void {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(() => void poll(), ms);
}

async function poll(): Promise<void> {
  clearTimeout(pollTimer);
  let answer: Answer;
  try {
    answer = await call('GET');
  } catch {
    if (!view) show(statusLine, 'The refund could not be loaded. Retrying…');
    schedule(TROUBLE_POLL_MS);
    return;
  }
  if (answer.ok) {
    render(answer.view);
    if (!answer.view.final) schedule(POLL_MS);
  } else if (answer.status === 404) {
    notFound();
  } else {
    schedule(Math.max(answer.retryAfter * 1000, TROUBLE_POLL_MS));
  }
}

function notFound(): void {
  document.body.dataset.state = 'not-found';
  show(heading, 'Refund link not found');
  show(
    statusLine,
    'This link does not open a refund. Check that you opened the whole link from the message you received.',
  );
  show(details);
}

/** Draws the view; the form, once drawn, stays as the customer filled it while the claim takes an address. */
function render(current: ClaimView): void {
  view = current;
  document.body.dataset.state = current.status;
  const title = current.store_name ? `A refund from ${current.store_name}` : 'Your refund';
  if (heading.textContent !== title) show(heading, title);
  document.title = `${title} · Claim`;
  const awaiting = current.status === 'awaiting_claim';
  const words = STATUS_WORDS[current.status] ?? `Status: ${current.status.replace(/_/g, ' ')}.`;
  // The live region speaks only when what it says changes.
  if (statusLine.textContent !== words) show(statusLine, words);
  if (awaiting) {
    if (!form) {
      form = claimForm(current);
      show(details, summary(current), form.element);
    }
    form.refused(current.failure_message);
    return;
  }
  const hadForm = form !== undefined;
  form = undefined;
  show(details, summary(current), progress(current));
  // The form the focus was in is gone: the heading takes it, so that a screen reader starts again from the top.
  if (hadForm) heading.focus();
}

/** The amount and what the customer receives it in; nothing else of the order. */
function summary(current: ClaimView): HTMLElement {
  const rows: Array<[string, string]> = [];
  if (current.debited_amount && current.debited_currency)
    rows.push(['Refund', `${short(current.debited_amount)} ${current.debited_currency}`]);
  if (current.amount && current.currency)
    rows.push(['You receive', `${short(current.amount)} ${current.currency}`]);
  else if (current.currency) rows.push(['You receive it in', current.currency]);
  if (current.address) rows.push(['To address', current.address]);
  if (current.expires_at && current.status === 'awaiting_claim')
    rows.push(['Link works until', new Date(current.expires_at).toLocaleString()]);
  return el(
    'section',
    { class: 'summary', 'aria-label': 'Your refund' },
    el('dl', {}, ...rows.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)])),
    current.currency && !current.amount && current.currency !== current.debited_currency
      ? el(
          'p',
          { class: 'note' },
          `You receive it in ${current.currency}, converted at the payment service's rate when it is sent.`,
        )
      : null,
  );
}

const STAGES = ['Address received', 'Sending', 'Sent'] as const;

/** Where the refund is on its way, and any reason it stopped. */
function progress(current: ClaimView): HTMLElement {
  const reached = current.status === 'confirmed' ? 3 : current.status === 'sending' ? 1 : 2;
  const stopped = current.final && current.status !== 'confirmed';
  const steps = current.status.startsWith('claim_')
    ? []
    : STAGES.map((stage, index) =>
        el(
          'li',
          {
            class: index < reached ? 'done' : 'todo',
            ...(index === reached - 1 ? { 'aria-current': 'step' } : {}),
          },
          stage,
          index < reached ? '' : el('span', { class: 'visually-hidden' }, ' (not yet)'),
        ),
      );
  return el(
    'section',
    { class: 'progress', 'aria-label': 'Progress' },
    steps.length > 0 && !stopped ? el('ol', {}, ...steps) : null,
    stopped && current.failure_message && steps.length > 0
      ? el('p', { class: 'problem' }, `The payment service said: ${current.failure_message}`)
      : null,
  );
}

interface ClaimForm {
  element: HTMLFormElement;
  /** Shows the payment service's refusal of the last address, or clears it. */
  refused(message: string | null): void;
}

type ReceiverType = 'natural' | 'legal';

function claimForm(current: ClaimView): ClaimForm {
  const problem = el('div', { id: 'claim-problem', class: 'problem', role: 'alert' });
  const address = input('claim-address', {
    autocomplete: 'off',
    spellcheck: 'false',
    autocapitalize: 'off',
    autocorrect: 'off',
    required: '',
    'aria-describedby': 'claim-problem',
  });
  const receiver = receiverFields();
  // A store that requires the receiver asks for it at once; one that changes its rule later asks after the refusal.
  if (current.travel_rule === 'required') receiver.reveal();
  const submit = el('button', { type: 'submit', class: 'button' }, 'Send my refund');
  const element = el(
    'form',
    { class: 'claim-form', novalidate: '' },
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'claim-address' }, `Your ${current.currency ?? 'wallet'} address`),
      address,
    ),
    receiver.element,
    problem,
    submit,
  );
  let sending = false;
  let shownRefusal: string | null = null;

  const fail = (message: string, focus: HTMLElement) => {
    show(problem, el('p', {}, message));
    focus.focus();
  };

  element.addEventListener('submit', (event) => {
    event.preventDefault();
    if (sending) return;
    const given = address.value.trim();
    if (!given) {
      address.setAttribute('aria-invalid', 'true');
      fail('Enter your address.', address);
      return;
    }
    sending = true;
    shownRefusal = null;
    submit.disabled = true;
    element.setAttribute('aria-busy', 'true');
    show(problem);
    show(statusLine, 'Sending your address…');
    void send({ address: given, ...(receiver.shown() ? { receiver: receiver.value() } : {}) }).finally(() => {
      sending = false;
      submit.disabled = false;
      element.removeAttribute('aria-busy');
    });
  });

  /** Sends the form; a busy answer is sent again as it is, which the API sends once however often it comes. */
  async function send(body: unknown, attempt = 0): Promise<void> {
    let answer: Answer;
    try {
      answer = await call('POST', body);
    } catch {
      show(statusLine, STATUS_WORDS.awaiting_claim);
      fail(
        'Your address could not be sent: the connection failed. Send it again; your refund is sent only once.',
        submit,
      );
      return;
    }
    if (answer.ok) {
      address.removeAttribute('aria-invalid');
      render(answer.view);
      if (!answer.view.final) schedule(POLL_MS);
      return;
    }
    const { status, error, retryAfter } = answer;
    if (status === 409 && error.code === 'in_progress' && attempt < 5) {
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      return send(body, attempt + 1);
    }
    show(statusLine, STATUS_WORDS.awaiting_claim);
    if (status === 400 && Object.keys(error.fields).some((field) => field.startsWith('receiver'))) {
      if (!receiver.shown()) {
        receiver.reveal();
        fail(
          'The store needs to know who receives this refund. Say who receives it, then send again.',
          receiver.first(),
        );
        return;
      }
      const [field, message] = Object.entries(error.fields)[0];
      const target = receiver.fieldFor(field) ?? receiver.first();
      target.setAttribute('aria-invalid', 'true');
      fail(`${receiver.labelOf(field)} ${message}.`, target);
      return;
    }
    if (status === 400 && error.fields.address) {
      address.setAttribute('aria-invalid', 'true');
      fail(`The address ${error.fields.address}.`, address);
      return;
    }
    if (status === 404) return notFound();
    if (status === 409 && (error.code === 'claim_taken' || error.code === 'claim_closed')) {
      fail(
        error.code === 'claim_taken'
          ? 'This refund has already been claimed with another address.'
          : 'This refund link no longer takes an address.',
        submit,
      );
      await poll();
      return;
    }
    fail(`Your address could not be sent (${error.message || error.code}). Please try again.`, submit);
  }

  return {
    element,
    refused(message) {
      if (message === shownRefusal) return;
      shownRefusal = message;
      if (message === null) return;
      address.setAttribute('aria-invalid', 'true');
      const said = /[.!?]$/.test(message) ? message : `${message}.`;
      fail(`The payment service refused this address: ${said} Check it and send it again.`, address);
    },
  };
}

const RECEIVER_LABELS: Readonly<Record<string, string>> = {
  first_name: 'First name',
  last_name: 'Last name',
  date_of_birth: 'Date of birth',
  email: 'E-mail (optional)',
  company_name: 'Company name',
  country: 'Country of registration (two letters, such as DE)',
};

/** Who receives the refund, asked only when the store's travel rule requires it. */
function receiverFields() {
  const choice = (value: ReceiverType, label: string) => {
    const radio = input(`receiver-${value}`, { type: 'radio', name: 'receiver-type', value });
    return {
      radio,
      element: el('div', { class: 'choice' }, radio, el('label', { for: `receiver-${value}` }, label)),
    };
  };
  const kinds = {
    natural: choice('natural', 'A person (me)'),
    legal: choice('legal', 'A company'),
  };
  kinds.natural.radio.checked = true;
  const inputs: Record<string, HTMLInputElement> = {};
  const group = (kind: 'natural' | 'legal', names: string[]) =>
    el(
      'div',
      { class: 'receiver-fields', 'data-kind': kind },
      ...names.map((name) => {
        const id = `receiver-${kind}-${name}`;
        const type = name === 'date_of_birth' ? 'date' : name === 'email' ? 'email' : 'text';
        const attributes: Record<string, string> = { type, autocomplete: AUTOCOMPLETE[name] ?? 'off' };
        if (name !== 'email') attributes.required = '';
        if (name === 'country') Object.assign(attributes, { maxlength: '2', autocapitalize: 'characters' });
        inputs[`${kind}.${name}`] = input(id, attributes);
        return el(
          'div',
          { class: 'field' },
          el('label', { for: id }, RECEIVER_LABELS[name]),
          inputs[`${kind}.${name}`],
        );
      }),
    );
  const natural = group('natural', ['first_name', 'last_name', 'date_of_birth', 'email']);
  const legal = group('legal', ['company_name', 'country', 'email']);
  const element = el(
    'fieldset',
    { class: 'receiver' },
    el('legend', {}, 'Who receives the refund'),
    el('p', { class: 'note' }, 'The law asks the payment service to know who receives a crypto transfer.'),
    kinds.natural.element,
    kinds.legal.element,
    natural,
    legal,
  );
  element.hidden = true;
  const type = (): ReceiverType =>
    (Object.keys(kinds) as ReceiverType[]).find((kind) => kinds[kind].radio.checked) ?? 'natural';
  const sync = () => {
    natural.hidden = type() !== 'natural';
    legal.hidden = type() !== 'legal';
  };
  for (const { radio } of Object.values(kinds)) radio.addEventListener('change', sync);
  sync();
  return {
    element,
    shown: () => !element.hidden,
    reveal: () => {
      element.hidden = false;
    },
    first: () => kinds[type()].radio,
    value: (): Record<string, string> => {
      const kind = type();
      const fields: Record<string, string> = { type: kind };
      for (const [key, field] of Object.entries(inputs)) {
        const [of, name] = key.split('.');
        const value = field.value.trim();
        if (of === kind && value) fields[name] = name === 'country' ? value.toUpperCase() : value;
      }
      return fields;
    },
    fieldFor: (field: string): HTMLInputElement | undefined =>
      inputs[`${type()}.${field.replace(/^receiver\./, '')}`],
    labelOf: (field: string): string =>
      field === 'receiver'
        ? 'Who receives the refund:'
        : (RECEIVER_LABELS[field.replace(/^receiver\./, '')] ?? field),
  };
}

const AUTOCOMPLETE: Readonly<Record<string, string>> = {
  first_name: 'given-name',
  last_name: 'family-name',
  date_of_birth: 'bday',
  email: 'email',
  company_name: 'organization',
  country: 'country',
};

function input(id: string, attributes: Record<string, string>): HTMLInputElement {
  return el('input', { id, name: id, ...attributes });
}

/** An exact decimal without the zeros past its second fractional digit, as text: `25.50000000` is `25.50`. */
function short(amount: string): string {
  return amount.replace(/(\.\d\d\d*?)0+$/, '$1');
}

if (link) {
  void poll();
} else {
  notFound();
}
