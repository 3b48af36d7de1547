// Every page builds its DOM here. Text is always a text node: a title, an address or an error text from a shop or
// the service is shown as it is, never parsed as HTML.

export type Child = Node | string | null | undefined | false;

/** `<tag attributes...>children</tag>`; strings become text nodes, and empty children are skipped. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  append(element, children);
  return element;
}

/** Replaces everything in `parent` with `children`. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}
