// What every handler works with: the resolved deps, the route table and the redaction applied to
// what it answers.
import { secretRedactor } from '@junction/agent-core/models';
import type { WorkflowDoor } from '@junction/workflows';
import { resolveDeps, type ResolvedDeps, type RestDeps } from './deps.js';
import type { RouteSpec } from './route-spec.js';

export interface RouteContext {
  deps: ResolvedDeps;
  /** The route table the router is built from: what the OpenAPI document describes. */
  routes: readonly RouteSpec[];
  /** Secret-looking keys and known secrets (`deps.secrets`) removed from a JSON value. */
  redact(value: unknown): unknown;
  /** Known secrets, bearer tokens, URL credentials and key shapes removed from a text. */
  clean(text: string): string;
}

/** Resolves the deps and builds the redaction once per router. */
export function createRouteContext(input: RestDeps, routes: readonly RouteSpec[]): RouteContext {
  const deps = resolveDeps(input);
  const secrets = [...(deps.secrets ?? [])];
  const redactor = secretRedactor(secrets);
  return {
    deps,
    routes,
    redact: (value) => redactor.value(value),
    clean: (text) => redactor.text(text),
  };
}

/** The workflow door of a router that serves the workflow routes (they are mounted only with one). */
export function workflowsOf(ctx: RouteContext): WorkflowDoor {
  const { workflows } = ctx.deps;
  if (!workflows)
    throw new Error('the workflow routes are mounted only when deps.workflows is given');
  return workflows;
}
