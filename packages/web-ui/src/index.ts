// Where the built dashboard and trace viewer live, for the server that serves them. The
// browser code itself is app/, compiled by tsconfig.browser.json into dist/ui.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This module runs as dist/index.js (built) or src/index.ts (tests): both sit one level under
// the package root, so dist/ui is found the same way from either.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Absolute path of the built UI folder (dist/ui): serve it at /ui/ or at the viewer's root. */
export const WEB_UI_ROOT: string = path.join(packageRoot, 'dist', 'ui');

/**
 * Every file of the built UI, relative to WEB_UI_ROOT with `/` separators. The server adds
 * `ui-config.json` itself. A test checks this list against a fresh build.
 */
export const WEB_UI_FILES: readonly string[] = Object.freeze([
  'api.js',
  'app.js',
  'auth-form.js',
  'components.js',
  'dom.js',
  'event-stream.js',
  'format.js',
  'index.html',
  'links.js',
  'page.js',
  'pages/agent.js',
  'pages/agents.js',
  'pages/approval.js',
  'pages/approvals.js',
  'pages/environments.js',
  'pages/new-run.js',
  'pages/run.js',
  'pages/runs.js',
  'pages/schedules.js',
  'pages/trace.js',
  'pages/traces.js',
  'pages/workflow-run.js',
  'pages/workflow.js',
  'pages/workflows.js',
  'router.js',
  'run-events.js',
  'sse-parser.js',
  'style.css',
  'theme.js',
  'timeline.js',
  'trace-search.js',
  'types.js',
  'variables.js',
  'vendor/eventsource-parser/LICENSE',
  'vendor/eventsource-parser/errors.js',
  'vendor/eventsource-parser/index.js',
  'vendor/eventsource-parser/parse.js',
  'wait.js',
  'waterfall-layout.js',
  'waterfall.js',
  'workflow-diagram.js',
  'workflow-graph.js',
]);
