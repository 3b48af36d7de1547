import type { Api } from './api';
import type { Feedback } from './page';

/** The store a deployment from before stores had: its settings are the deployment's. */
export const DEFAULT_STORE_ID = 'default';

/** What every view gets: the signed-in API, the live regions, where to draw itself, and what it keeps. */
export interface ViewContext {
  api: Api;
  /** The store the console works on. */
  store: string;
  feedback: Feedback;
  root: HTMLElement;
  /** What views keep between visits (a list's filter and page), one memory per store: another store starts afresh. */
  memory: Map<string, unknown>;
}

/** The view's heading, focusable so that a change of view moves the keyboard and screen reader focus to it. */
export function heading(text: string): HTMLHeadingElement {
  const h1 = document.createElement('h1');
  h1.tabIndex = -1;
  h1.textContent = text;
  return h1;
}

/** The view's kept state under `key`, made by `initial` on the first visit for this store. */
export function remembered<T>(context: ViewContext, key: string, initial: () => T): T {
  if (!context.memory.has(key)) context.memory.set(key, initial());
  return context.memory.get(key) as T;
}
