import type { Api } from './api';
import type { Feedback } from './page';

/** What every view gets: the signed-in API, the live regions, and where to draw itself. */
export interface ViewContext {
  api: Api;
  feedback: Feedback;
  root: HTMLElement;
}

/** The view's heading, focusable so that a change of view moves the keyboard and screen reader focus to it. */
export function heading(text: string): HTMLHeadingElement {
  const h1 = document.createElement('h1');
  h1.tabIndex = -1;
  h1.textContent = text;
  return h1;
}
