type Attr = string | number | boolean | undefined | ((event: Event) => void);

/**
 * An element with its attributes, listeners (`on<event>` keys) and children:
 * the app's one DOM helper. `false` and `undefined` leave an attribute out.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: (Node | string | null)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null) el.append(child);
  return el;
}

/** The element with `data-testid` `id` under `root`; a missing one is a bug in index.html. */
export function byTestId<T extends HTMLElement>(id: string, root: ParentNode = document): T {
  const el = root.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`no element with data-testid="${id}"`);
  return el;
}
