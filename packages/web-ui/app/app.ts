// The entry module: reads ui-config.json, builds the navigation for the mode (dashboard or
// trace viewer), renders the page the URL hash names, and shows the sign-in form on a 401.
import { ApiClient, ApiError, storageKeyStore, type KeyStore } from './api.js';
import { renderSignIn } from './auth-form.js';
import { h, replace } from './dom.js';
import { baseUrl, createLinks } from './links.js';
import type { PageContext, PageRenderer } from './page.js';
import { pageHeading } from './page.js';
import { renderAgent } from './pages/agent.js';
import { renderAgents } from './pages/agents.js';
import { renderApproval } from './pages/approval.js';
import { renderApprovals } from './pages/approvals.js';
import { renderEnvironments } from './pages/environments.js';
import { renderNewRun } from './pages/new-run.js';
import { renderRun } from './pages/run.js';
import { renderRuns } from './pages/runs.js';
import { renderSchedules } from './pages/schedules.js';
import { renderTrace } from './pages/trace.js';
import { renderTraces } from './pages/traces.js';
import { renderWorkflow } from './pages/workflow.js';
import { renderWorkflowRun } from './pages/workflow-run.js';
import { renderWorkflows } from './pages/workflows.js';
import { defaultPage, parseHash, routeHash, type PageName, type Route } from './router.js';
import { setUpTheme } from './theme.js';
import type { UiConfig } from './types.js';

const PAGES: Readonly<Record<PageName, PageRenderer>> = {
  agents: renderAgents,
  agent: renderAgent,
  runs: renderRuns,
  run: renderRun,
  workflows: renderWorkflows,
  workflow: renderWorkflow,
  'workflow-run': renderWorkflowRun,
  approvals: renderApprovals,
  approval: renderApproval,
  schedules: renderSchedules,
  environments: renderEnvironments,
  'new-run': renderNewRun,
  traces: renderTraces,
  trace: renderTrace,
  'not-found': renderNotFound,
};

/** The navigation: each entry lights up for the pages of its section. */
const NAV: ReadonlyArray<{ label: string; path: string; pages: readonly PageName[] }> = [
  { label: 'Runs', path: '/runs', pages: ['runs', 'run'] },
  { label: 'Agents', path: '/agents', pages: ['agents', 'agent'] },
  { label: 'Workflows', path: '/workflows', pages: ['workflows', 'workflow', 'workflow-run'] },
  { label: 'Approvals', path: '/approvals', pages: ['approvals', 'approval'] },
  { label: 'Schedules', path: '/schedules', pages: ['schedules'] },
  { label: 'Environments', path: '/environments', pages: ['environments'] },
  { label: 'Traces', path: '/traces', pages: ['traces', 'trace'] },
  { label: 'New run', path: '/new-run', pages: ['new-run'] },
];

function renderNotFound(ctx: PageContext, root: HTMLElement): void {
  const home = defaultPage(ctx.config.mode);
  root.append(
    pageHeading('Page not found'),
    h(
      'p',
      null,
      'Nothing lives at this address in the ',
      ctx.config.mode === 'viewer' ? 'trace viewer' : 'dashboard',
      '. ',
      h(
        'a',
        { href: routeHash(`/${home}`) },
        home === 'runs' ? 'Go to the runs' : 'Go to the traces',
      ),
      '.',
    ),
  );
}

/** The elements of index.html the app fills. */
interface Shell {
  nav: HTMLElement;
  page: HTMLElement;
  alert: HTMLElement;
  status: HTMLElement;
  signOut: HTMLButtonElement;
  theme: HTMLButtonElement;
  version: HTMLElement;
  brand: HTMLElement;
  extra: HTMLElement;
  main: HTMLElement;
  skip: HTMLAnchorElement;
}

function shell(): Shell {
  const get = <T extends HTMLElement>(id: string): T => {
    const el = document.getElementById(id);
    if (!el) throw new Error(`index.html has no #${id}`);
    return el as T;
  };
  return {
    nav: get('nav'),
    page: get('page'),
    alert: get('alert'),
    status: get('status'),
    signOut: get('sign-out'),
    theme: get('theme-toggle'),
    version: get('version'),
    brand: get('brand-mode'),
    extra: get('header-links'),
    main: get('main'),
    skip: get('skip-link'),
  };
}

function isUiConfig(value: unknown): value is UiConfig {
  if (value === null || typeof value !== 'object') return false;
  const c = value as Record<string, unknown>;
  const urlOrNull = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string';
  return (
    (c.mode === 'dashboard' || c.mode === 'viewer') &&
    urlOrNull(c.viewer_url) &&
    urlOrNull(c.dashboard_url)
  );
}

async function loadConfig(): Promise<{ config: UiConfig; problem: string | null }> {
  // Without a usable config the path tells the mode: the dashboard is served under /ui/.
  const guess: UiConfig = {
    mode: location.pathname.startsWith('/ui') ? 'dashboard' : 'viewer',
    viewer_url: null,
    dashboard_url: null,
    version: '',
  };
  try {
    const response = await fetch('./ui-config.json', { cache: 'no-store' });
    const body: unknown = response.ok ? await response.json() : null;
    if (isUiConfig(body)) {
      return {
        config: {
          mode: body.mode,
          viewer_url: body.viewer_url ?? null,
          dashboard_url: body.dashboard_url ?? null,
          version: typeof body.version === 'string' ? body.version : '',
        },
        problem: null,
      };
    }
    return { config: guess, problem: 'ui-config.json is missing or malformed.' };
  } catch {
    return { config: guess, problem: 'ui-config.json could not be loaded.' };
  }
}

class App {
  readonly #shell: Shell;
  readonly #config: UiConfig;
  readonly #keys: KeyStore;
  readonly #api: ApiClient;
  #page: AbortController | undefined;
  #signingIn = false;
  #lastPath: string | undefined;
  #announceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(el: Shell, config: UiConfig, keys: KeyStore) {
    this.#shell = el;
    this.#config = config;
    this.#keys = keys;
    this.#api = new ApiClient({ keys, onUnauthorized: (hadKey) => this.#requireSignIn(hadKey) });
  }

  start(): void {
    const { nav, signOut, version, brand, extra, skip, main } = this.#shell;
    const links = this.#config.mode === 'viewer' ? NAV.filter((n) => n.label === 'Traces') : NAV;
    replace(
      nav,
      h(
        'ul',
        null,
        links.map((n) =>
          h('li', null, h('a', { href: routeHash(n.path), 'data-nav': n.path }, n.label)),
        ),
      ),
    );
    brand.textContent = this.#config.mode === 'viewer' ? 'trace viewer' : 'dashboard';
    const dashboard = baseUrl(this.#config.dashboard_url);
    if (this.#config.mode === 'viewer' && dashboard) {
      replace(extra, h('a', { href: `${dashboard}/ui/` }, 'Dashboard'));
    }
    version.textContent = this.#config.version ? `version ${this.#config.version}` : '';
    signOut.hidden = this.#keys.get() === null;
    signOut.addEventListener('click', () => {
      this.#keys.clear();
      signOut.hidden = true;
      this.#announce('Signed out.');
      this.render();
    });
    // The skip link would otherwise change the hash, which is the router's.
    skip.addEventListener('click', (event) => {
      event.preventDefault();
      main.focus();
    });
    window.addEventListener('hashchange', () => this.render());
    this.render();
  }

  /** Renders the page of the current hash, stopping whatever the previous page was doing. */
  render(): void {
    this.#page?.abort();
    this.#signingIn = false;
    const controller = new AbortController();
    this.#page = controller;
    const route = parseHash(location.hash, this.#config.mode);
    this.#markNav(route);
    this.#clearError();
    const moved = this.#lastPath !== undefined && this.#lastPath !== route.path;
    this.#lastPath = route.path;

    const { page } = this.#shell;
    page.replaceChildren();
    const ctx: PageContext = {
      api: this.#api,
      config: this.#config,
      links: createLinks(this.#config),
      route,
      signal: controller.signal,
      announce: (message) => this.#announce(message),
      showError: (error) => {
        if (!controller.signal.aborted) this.#showError(error);
      },
      clearError: () => this.#clearError(),
      navigate: (hash) => {
        if (location.hash === hash) this.render();
        else location.hash = hash;
      },
    };
    let result: void | Promise<void>;
    try {
      result = PAGES[route.page](ctx, page);
    } catch (err) {
      this.#showError(err);
      return;
    }
    // After a navigation, focus goes to the new page's heading so screen readers start there.
    if (moved) page.querySelector<HTMLElement>('h1')?.focus();
    Promise.resolve(result).catch((err: unknown) => ctx.showError(err));
  }

  #markNav(route: Route): void {
    for (const a of this.#shell.nav.querySelectorAll<HTMLAnchorElement>('a[data-nav]')) {
      const entry = NAV.find((n) => n.path === a.dataset.nav);
      if (entry?.pages.includes(route.page)) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }

  #requireSignIn(hadKey: boolean): void {
    if (this.#signingIn) return;
    this.#signingIn = true;
    this.#page?.abort();
    if (hadKey) this.#keys.clear();
    this.#shell.signOut.hidden = true;
    this.#clearError();
    renderSignIn(this.#shell.page, hadKey, (key) => {
      this.#keys.set(key);
      this.#shell.signOut.hidden = false;
      this.#announce('Signed in.');
      this.render();
    });
  }

  #announce(message: string): void {
    // Emptied first, so the same message twice is announced twice.
    const { status } = this.#shell;
    status.textContent = '';
    clearTimeout(this.#announceTimer);
    this.#announceTimer = setTimeout(() => {
      status.textContent = message;
      // Read out by then; the visible line goes away so it does not outlive its news.
      this.#announceTimer = setTimeout(() => {
        status.textContent = '';
      }, 8000);
    }, 50);
  }

  #showError(error: unknown): void {
    if (error instanceof ApiError && error.status === 401) return;
    if (error instanceof DOMException && error.name === 'AbortError') return;
    const message =
      error instanceof ApiError
        ? error.code.startsWith('HTTP_') || error.code === 'NETWORK_ERROR'
          ? error.message
          : `${error.message} (${error.code})`
        : error instanceof Error
          ? error.message
          : 'Something went wrong.';
    replace(
      this.#shell.alert,
      h(
        'div',
        { class: 'alert-box' },
        h('p', null, h('strong', null, 'Error: '), message),
        h(
          'button',
          { type: 'button', class: 'quiet', onclick: () => this.#clearError() },
          'Dismiss',
        ),
      ),
    );
  }

  #clearError(): void {
    this.#shell.alert.replaceChildren();
  }
}

async function main(): Promise<void> {
  const el = shell();
  setUpTheme(el.theme, localStorage, matchMedia('(prefers-color-scheme: dark)'));
  const { config, problem } = await loadConfig();
  const app = new App(el, config, storageKeyStore(sessionStorage));
  app.start();
  if (problem) {
    replace(
      el.alert,
      h('div', { class: 'alert-box' }, h('p', null, h('strong', null, 'Error: '), problem)),
    );
  }
}

void main();
