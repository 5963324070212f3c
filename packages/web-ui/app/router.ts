// The hash router: `#/runs/12?x=y` names a page, an id and filters. Pure functions, so the
// routes are tested in Node; app.ts listens to `hashchange` and renders what parseHash says.
import type { UiMode } from './types.js';

export type PageName =
  | 'agents'
  | 'agent'
  | 'runs'
  | 'run'
  | 'workflows'
  | 'workflow'
  | 'workflow-run'
  | 'approvals'
  | 'approval'
  | 'schedules'
  | 'environments'
  | 'new-run'
  | 'traces'
  | 'trace'
  | 'not-found';

export interface Route {
  page: PageName;
  /** The id segment of a detail page, decoded. */
  id: string | undefined;
  /** Filters after `?`, empty values left out. */
  query: Readonly<Record<string, string>>;
  /** The path part, e.g. `/runs/12`, normalised (leading slash, no trailing one). */
  path: string;
}

type IdKind = 'number' | 'key';

/** `/section` or `/section/<id>`: the page of each, and what an id may look like. */
const SECTIONS: Readonly<Record<string, { list?: PageName; detail?: PageName; id?: IdKind }>> = {
  agents: { list: 'agents', detail: 'agent', id: 'number' },
  runs: { list: 'runs', detail: 'run', id: 'number' },
  workflows: { list: 'workflows', detail: 'workflow', id: 'key' },
  'workflow-runs': { detail: 'workflow-run', id: 'number' },
  approvals: { list: 'approvals', detail: 'approval', id: 'key' },
  schedules: { list: 'schedules' },
  environments: { list: 'environments' },
  'new-run': { list: 'new-run' },
  traces: { list: 'traces', detail: 'trace', id: 'key' },
};

/** The page of an empty hash. */
export function defaultPage(mode: UiMode): PageName {
  return mode === 'viewer' ? 'traces' : 'runs';
}

/** Whether the page exists in this mode: the viewer has the trace pages only. */
export function pageAvailable(page: PageName, mode: UiMode): boolean {
  if (mode === 'dashboard') return true;
  return page === 'traces' || page === 'trace' || page === 'not-found';
}

const MAX_KEY = 200;
// eslint-disable-next-line no-control-regex -- the point is to refuse control characters
const CONTROL = /[\u0000-\u001f\u007f]/;

function validId(raw: string, kind: IdKind): boolean {
  if (kind === 'number') return /^[1-9]\d{0,15}$/.test(raw);
  return raw.length > 0 && raw.length <= MAX_KEY && !CONTROL.test(raw);
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Reads `location.hash` (with or without the `#`) in the given mode. */
export function parseHash(hash: string, mode: UiMode): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const mark = text.indexOf('?');
  const rawPath = mark === -1 ? text : text.slice(0, mark);
  const query: Record<string, string> = {};
  if (mark !== -1) {
    for (const [key, value] of new URLSearchParams(text.slice(mark + 1))) {
      if (value !== '' && !(key in query)) query[key] = value;
    }
  }
  const segments = rawPath.split('/').filter((s) => s !== '');
  const path = `/${segments.join('/')}`;
  const route = (page: PageName, id?: string): Route => ({
    page: pageAvailable(page, mode) ? page : 'not-found',
    id,
    query,
    path,
  });

  if (segments.length === 0) return route(defaultPage(mode));
  const section = SECTIONS[segments[0] ?? ''];
  if (!section || segments.length > 2) return route('not-found');
  if (segments.length === 1) return section.list ? route(section.list) : route('not-found');
  const id = decode(segments[1] ?? '');
  if (!section.detail || !section.id || id === undefined || !validId(id, section.id)) {
    return route('not-found');
  }
  return route(section.detail, id);
}

export type QueryInput = Readonly<Record<string, string | number | null | undefined>>;

/** The hash of a page: `routeHash('/runs', {status: 'error'})` is `#/runs?status=error`. */
export function routeHash(path: string, query: QueryInput = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `#${path}${search ? `?${search}` : ''}`;
}

/** `#/runs/12`: a path segment encoded so any id stays one segment. */
export function idPath(section: string, id: string | number): string {
  return `/${section}/${encodeURIComponent(String(id))}`;
}
