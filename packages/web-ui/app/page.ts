// What a page gets from the app, and helpers every page shares.
import type { ApiClient } from './api.js';
import { h } from './dom.js';
import type { Links } from './links.js';
import type { Route } from './router.js';
import type { UiConfig } from './types.js';

export interface PageContext {
  api: ApiClient;
  config: UiConfig;
  links: Links;
  route: Route;
  /** Aborted when the reader leaves the page: stops its polls, streams and fetches. */
  signal: AbortSignal;
  /** Says something in the polite status region. */
  announce(message: string): void;
  /** Shows an error's message in the alert region (a 401 or an abort shows nothing). */
  showError(error: unknown): void;
  clearError(): void;
  navigate(hash: string): void;
}

/** Renders a page into `root`; it may keep updating it until `ctx.signal` aborts. */
export type PageRenderer = (ctx: PageContext, root: HTMLElement) => void | Promise<void>;

/** The page's `<h1>`, focusable by the app after a navigation; also sets the tab title. */
export function pageHeading(text: string): HTMLHeadingElement {
  document.title = `${text} · Junction`;
  return h('h1', { tabindex: -1 }, text);
}

/** Runs the body of a page; errors go to the alert region unless the page was left. */
export async function guarded(ctx: PageContext, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    if (!ctx.signal.aborted) ctx.showError(err);
  }
}

/**
 * Re-renders `container` only when the data changed, keeping keyboard focus on the element
 * with the same `data-focus-key` (a poll must not throw the reader's focus away).
 */
export function renderIfChanged(
  container: HTMLElement,
  data: unknown,
  previous: { json: string | undefined },
  render: () => Node,
): void {
  const json = JSON.stringify(data);
  if (json === previous.json) return;
  previous.json = json;
  const active = document.activeElement;
  const key =
    active instanceof HTMLElement && container.contains(active)
      ? active.dataset.focusKey
      : undefined;
  container.replaceChildren(render());
  if (key !== undefined) {
    const again = container.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(key)}"]`);
    again?.focus();
  }
}
