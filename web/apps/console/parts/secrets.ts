// Secrets the API answers only once (a new store's tokens and webhook secret, rotated tokens): shown in the page,
// each with a copy button, under a plain warning. They live in this view's DOM alone: leaving the view, or
// reloading, drops them for good.
import { el } from '../../shared/dom';
import type { Feedback } from './page';

export interface OnceSecret {
  /** What it is, as the store owner knows it: "Storefront token". */
  label: string;
  value: string;
  /** Where it goes. */
  use: string;
}

/**
 * A panel of secrets shown this once, titled `title`; `after` says what happens next (old tokens, next steps). Its
 * heading takes the focus where the panel appears (focusOnce), so that a screen reader starts at the secrets.
 */
export function shownOnce(
  feedback: Feedback,
  title: string,
  secrets: readonly OnceSecret[],
  after: Array<Node | string> = [],
): HTMLElement {
  const titleId = 'shown-once-title';
  return el(
    'section',
    { class: 'panel shown-once', 'aria-labelledby': titleId },
    el('h2', { id: titleId, tabindex: '-1' }, title),
    el(
      'p',
      { class: 'notice notice-warning' },
      el('strong', {}, 'Shown once. '),
      'Copy each one now and keep it somewhere safe. They are not stored in this console, and no page or answer shows them again. A lost token can only be replaced by rotating the tokens.',
    ),
    el(
      'dl',
      { class: 'secrets' },
      ...secrets.flatMap((secret) => [
        el('dt', {}, secret.label),
        el(
          'dd',
          {},
          el('code', { class: 'secret-value' }, secret.value),
          copyButton(feedback, secret.label, secret.value),
          el('span', { class: 'help' }, secret.use),
        ),
      ]),
    ),
    ...after,
  );
}

/** Copies `value`; a browser that refuses the clipboard gets told to select the text instead. */
export function copyButton(feedback: Feedback, label: string, value: string): HTMLButtonElement {
  const button = el(
    'button',
    { type: 'button', class: 'button button-small' },
    'Copy',
    el('span', { class: 'visually-hidden' }, ` ${label.toLowerCase()}`),
  );
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value);
      feedback.say(`${label} copied.`);
    } catch {
      feedback.say(`The browser did not allow copying: select the ${label.toLowerCase()} and copy it.`);
    }
  });
  return button;
}

/** The heading of the shown-once panel in `root`, focused. */
export function focusOnce(root: HTMLElement): HTMLElement | undefined {
  const title = root.querySelector<HTMLElement>('.shown-once h2') ?? undefined;
  title?.focus();
  return title;
}
