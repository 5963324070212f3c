// How a route of the webhook port is declared: its method and path, the dep it needs, and the
// chain of its handlers, built once per app or router. The app mounts the route list; the 405
// of each path (with Allow) comes from the methods the list gives it.
import type { RequestHandler, Router } from 'express';
import { methodNotAllowed } from './http-errors.js';
import type { WebhookContext } from './webhook-context.js';

/** Where the routes go: an app (flat, as `createWebhookApp` serves them) or a router. */
export type RouteTarget = Pick<Router, 'get' | 'post' | 'all'>;

/** A route of the webhook port. */
export interface WebhookRoute {
  method: 'get' | 'post';
  /** Express path; `:name` segments are path parameters. */
  path: string;
  /**
   * Served only with this: `execute` — webhook.enabled; `workflows` — a workflow door. Without
   * it the route is not mounted (404 like any unknown route).
   */
  needs?: 'execute' | 'workflows';
  /**
   * Its handlers, middleware first. Keep the chain short: on a busy server every routing layer
   * is paid per request.
   */
  handle(ctx: WebhookContext): RequestHandler[];
}

/** Declares a route of the webhook port. */
export function defineRoute(route: WebhookRoute): WebhookRoute {
  return route;
}

function isServed(route: WebhookRoute, ctx: WebhookContext): boolean {
  if (route.needs === 'execute') return ctx.deps.enabled;
  if (route.needs === 'workflows') return ctx.deps.workflows !== undefined;
  return true;
}

/**
 * Mounts the routes `ctx` serves on `target`, path by path in the order of the list: each
 * route's chain, then the path's 405 naming the methods it has (GET with HEAD).
 */
export function mountRoutes(
  target: RouteTarget,
  routes: readonly WebhookRoute[],
  ctx: WebhookContext,
): void {
  const served = routes.filter((route) => isServed(route, ctx));
  const paths = [...new Set(served.map((route) => route.path))];
  for (const path of paths) {
    const here = served.filter((route) => route.path === path);
    for (const route of here) target[route.method](path, ...route.handle(ctx));
    const allow = here.flatMap((route) =>
      route.method === 'get' ? ['GET', 'HEAD'] : [route.method.toUpperCase()],
    );
    target.all(path, methodNotAllowed(allow));
  }
}
