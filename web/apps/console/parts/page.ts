// The parts every view shares: the live regions that announce results and errors, the loading state, tables,
// status badges and the confirmation dialog.
import { el, show, type Child } from '../../shared/dom';
import { ApiError, type InvoiceStatus } from './api';
import { STATUS_WORDS } from './format';

/** The API's message and code, as text. */
export function errorText(error: unknown): HTMLElement {
  if (error instanceof ApiError) {
    const fields = Object.entries(error.fields).map(([field, problem]) => `${field}: ${problem}`);
    return el(
      'span',
      {},
      error.message,
      ' ',
      el('code', { class: 'error-code' }, error.code),
      fields.length > 0 && el('span', { class: 'error-fields' }, fields.join('; ')),
    );
  }
  return el('span', {}, error instanceof Error ? error.message : String(error));
}

/**
 * The two live regions at the top of the main landmark: results (polite) and errors (assertive). A view's own
 * Feedback (`within`) falls silent once the operator has left the view, so that a late answer cannot speak over
 * the next one.
 */
export class Feedback {
  constructor(
    private readonly status: HTMLElement,
    private readonly alert: HTMLElement,
    private readonly scope?: Element,
  ) {}

  within(scope: Element): Feedback {
    return new Feedback(this.status, this.alert, scope);
  }

  say(message: string): void {
    if (this.left()) return;
    show(this.alert);
    show(this.status, message);
  }

  fail(error: unknown): void {
    if (this.left()) return;
    show(this.status);
    show(this.alert, el('p', { class: 'notice notice-error' }, errorText(error)));
  }

  clear(): void {
    show(this.status);
    show(this.alert);
  }

  private left(): boolean {
    return this.scope !== undefined && !this.scope.isConnected;
  }

  /**
   * Runs `work` with `region` marked busy and a loading message; a failure is shown, not thrown. With `ask`, from
   * `latestAsks`, an answer or a failure that arrives once a later ask has begun is dropped: undefined, nothing shown.
   */
  async load<T>(
    region: HTMLElement,
    loading: string,
    work: () => Promise<T>,
    ask: Ask = () => true,
  ): Promise<T | undefined> {
    this.say(loading);
    region.setAttribute('aria-busy', 'true');
    try {
      const answer = await work();
      return ask() ? answer : undefined;
    } catch (error) {
      if (ask()) this.fail(error);
      return undefined;
    } finally {
      // The later ask's own load unmarks the region when its answer is drawn.
      if (ask()) region.removeAttribute('aria-busy');
    }
  }
}

/** Whether an ask is still the latest of its kind. */
export type Ask = () => boolean;

/**
 * Numbers one list's or chart's asks, so that only the answer to the latest is drawn: switching the period or the
 * page quickly, a slower answer to an earlier ask must not overwrite a later one. Each call begins an ask.
 */
export function latestAsks(): () => Ask {
  let asked = 0;
  return () => {
    const mine = ++asked;
    return () => mine === asked;
  };
}

/** A record's head: its heading, a line on what it is and how it stands (`about`), then what can be done to it. */
export function recordHead(h1: HTMLElement, about: Child[], ...actions: Child[]): HTMLElement {
  return el('div', { class: 'invoice-head' }, h1, el('p', { class: 'invoice-sub' }, ...about), ...actions);
}

/** A list's toolbar: a line on what the list holds, then what can be done with it. */
export function helpToolbar(help: string, ...actions: Child[]): HTMLElement {
  return el('div', { class: 'toolbar' }, el('p', { class: 'help' }, help), ...actions);
}

export function statusBadge(status: InvoiceStatus): HTMLElement {
  return el('span', { class: `badge badge-${status}` }, STATUS_WORDS[status]);
}

type Cell = Node | string;

/**
 * Previous and Next over a list the API pages with forward-only cursors: `cursors` holds the cursor of every page
 * shown so far (undefined for the first), so that Previous can go back. `turn` shows the page the new list ends at.
 */
export function pagerControls(
  cursors: Array<string | undefined>,
  nextCursor: string | null,
  turn: (cursors: Array<string | undefined>) => void,
): Node[] {
  const page = cursors.length;
  const previous = el('button', { type: 'button', class: 'button' }, 'Previous page');
  const next = el('button', { type: 'button', class: 'button' }, 'Next page');
  previous.disabled = page === 1;
  next.disabled = nextCursor === null;
  const go = (to: Array<string | undefined>) => {
    previous.disabled = next.disabled = true;
    turn(to);
  };
  previous.addEventListener('click', () => go(cursors.slice(0, -1)));
  next.addEventListener('click', () => go([...cursors, nextCursor!]));
  return [previous, el('span', { class: 'page-number' }, `Page ${page}`), next];
}

/**
 * Shows a list's pager, which turns to another page by changing `state.cursors` and calling `turn`, and says what
 * the page holds (`shown`, such as "3 stores") for the screen reader and the status line.
 */
export function showPager(
  pager: HTMLElement,
  state: { cursors: Array<string | undefined> },
  list: { next_cursor: string | null },
  shown: string,
  feedback: Pick<Feedback, 'say'>,
  turn: () => void,
): void {
  show(
    pager,
    ...pagerControls(state.cursors, list.next_cursor, (cursors) => {
      state.cursors = cursors;
      turn();
    }),
  );
  feedback.say(`Page ${state.cursors.length}: ${shown}${list.next_cursor ? ', more on the next page' : ''}.`);
}

export function table(caption: string, headers: string[], rows: Cell[][]): HTMLTableElement {
  return el(
    'table',
    {},
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...headers.map((header) => el('th', { scope: 'col' }, header)))),
    el('tbody', {}, ...rows.map((row) => el('tr', {}, ...row.map((cell) => el('td', {}, cell))))),
  );
}

/** Label / value pairs. */
export function facts(pairs: Array<[string, Cell]>): HTMLDListElement {
  return el(
    'dl',
    { class: 'facts' },
    ...pairs.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]),
  );
}

export interface Confirmation {
  title: string;
  /** What the operator is about to do, with the amount and its bounds. */
  body: Node[];
  confirm: string;
  dismiss: string;
  /** A confirm that cannot be undone looks it. */
  destructive?: boolean;
  /**
   * Runs on confirm; an error keeps the dialog open and shows the API's message in it. It may name where the focus
   * goes after, when the button that opened the dialog is gone.
   */
  action(): Promise<HTMLElement | void>;
}

/** A modal dialog: focus stays in it, Escape or the dismiss button closes it, and nothing happens until confirm. */
export function confirmDialog({ title, body, confirm, dismiss, destructive, action }: Confirmation): void {
  const titleId = `dialog-title-${Date.now()}`;
  const problem = el('div', { role: 'alert' });
  const confirmButton = el(
    'button',
    { type: 'submit', class: `button button-primary${destructive ? ' button-danger' : ''}` },
    confirm,
  );
  const dismissButton = el('button', { type: 'button', class: 'button' }, dismiss);
  const form = el(
    'form',
    { method: 'dialog' },
    el('h2', { id: titleId }, title),
    ...body,
    problem,
    el('div', { class: 'dialog-actions' }, dismissButton, confirmButton),
  );
  const dialog = el('dialog', { 'aria-labelledby': titleId }, form);
  dialog.addEventListener('close', () => dialog.remove());
  dismissButton.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    confirmButton.disabled = true;
    form.setAttribute('aria-busy', 'true');
    show(problem);
    try {
      const focusAfter = await action();
      dialog.close();
      focusAfter?.focus();
    } catch (error) {
      show(problem, el('p', { class: 'notice notice-error' }, errorText(error)));
    } finally {
      confirmButton.disabled = false;
      form.removeAttribute('aria-busy');
    }
  });
  document.body.append(dialog);
  dialog.showModal();
}
