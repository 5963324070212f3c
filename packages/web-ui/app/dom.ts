// The one way pages build DOM: `h('a', {href}, 'text')`. Children that are strings become text
// nodes, so anything from the API is shown as text and never parsed as markup.

export type Child = Node | string | number | null | undefined | false | readonly Child[];

type Handler = (event: Event) => void;
type StyleMap = Readonly<Record<string, string>>;

/** Attributes; `on<event>` takes a listener, `style` a map of CSS properties; false/null skip. */
export type Attrs = Readonly<
  Record<string, string | number | boolean | null | undefined | Handler | StyleMap>
>;

// URLs the pages build are `#/…`, relative, or http(s) from ui-config.json; never a script.
const UNSAFE_URL = /^\s*(javascript|vbscript|data):/i;

function apply(el: Element, attrs: Attrs | null | undefined): void {
  if (!attrs) return;
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') {
      el.addEventListener(name.replace(/^on/, ''), value);
    } else if (typeof value === 'object') {
      const style = (el as HTMLElement | SVGElement).style;
      for (const [property, v] of Object.entries(value)) style.setProperty(property, v);
    } else {
      const text = value === true ? '' : String(value);
      if ((name === 'href' || name === 'src' || name === 'action') && UNSAFE_URL.test(text)) {
        throw new Error(`Refusing the ${name} ${JSON.stringify(text.slice(0, 40))}.`);
      }
      el.setAttribute(name, text);
    }
  }
}

function append(el: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child as readonly Child[]);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Creates an HTML element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

let svgNamespace: string | undefined;

/**
 * The SVG namespace, asked of the HTML parser (which puts `<svg>` in it), so the namespace's
 * URL is not written into the shipped files.
 */
function svgNs(): string {
  svgNamespace ??=
    new DOMParser().parseFromString('<svg></svg>', 'text/html').body.firstElementChild
      ?.namespaceURI ?? '';
  return svgNamespace;
}

/** Creates an SVG element with attributes and children. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(svgNs(), tag) as SVGElementTagNameMap[K];
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}
