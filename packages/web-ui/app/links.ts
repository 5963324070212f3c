// Where a run or a trace links to, by mode: the dashboard has every page; the trace viewer
// links runs to the dashboard when it knows its address. Pure, so it is tested in Node.
import { idPath, routeHash } from './router.js';
import type { UiConfig } from './types.js';

export interface Links {
  /** A run's page, or null when this UI cannot show runs and knows no dashboard. */
  run(runId: number): string | null;
  /** A trace's waterfall in this UI. */
  trace(traceId: string): string;
  /** The same trace in the separate trace viewer, when the dashboard knows its address. */
  viewerTrace(traceId: string): string | null;
}

/**
 * An http(s) base address without a trailing slash, or null: a configured address is only
 * ever used as a link, never as a script or a `javascript:` URL.
 */
export function baseUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.href.replace(/\/+$/, '');
}

/** The links of this UI's mode and configured addresses. */
export function createLinks(config: UiConfig): Links {
  const dashboard = baseUrl(config.dashboard_url);
  const viewer = baseUrl(config.viewer_url);
  return {
    run: (runId) => {
      const hash = routeHash(idPath('runs', runId));
      if (config.mode === 'dashboard') return hash;
      return dashboard ? `${dashboard}/ui/${hash}` : null;
    },
    trace: (traceId) => routeHash(idPath('traces', traceId)),
    viewerTrace: (traceId) =>
      config.mode === 'dashboard' && viewer
        ? `${viewer}/${routeHash(idPath('traces', traceId))}`
        : null,
  };
}
