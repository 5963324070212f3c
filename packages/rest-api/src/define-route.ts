// How a REST route is declared: one object holding what the OpenAPI document publishes and
// the handler the router mounts, so a route is one `defineRoute` beside its handler. The body
// middleware comes from the body declaration; no route writes its chain by hand.
import type { RequestHandler } from 'express';
import { jsonBody, optionalJsonBody } from './request-body.js';
import type { RouteContext } from './route-context.js';
import type { RouteSpec } from './route-spec.js';

/** A route: its spec, and the factory of its handler, called once per router. */
export interface RouteDefinition<Id extends string = string> extends RouteSpec<Id> {
  handle(ctx: RouteContext): RequestHandler;
}

/** Declares a route; its `operationId` stays a literal type, so `OperationId` is derived from the table. */
export function defineRoute<const Id extends string>(
  route: RouteDefinition<Id>,
): RouteDefinition<Id> {
  return route;
}

/** The chain the router mounts for a route: its body's reading (when it takes one), then its handler. */
export function routeHandlers(route: RouteDefinition, ctx: RouteContext): RequestHandler[] {
  const limit = ctx.deps.maxBodyBytes;
  const body =
    route.body === undefined ? [] : route.body.optional ? optionalJsonBody(limit) : jsonBody(limit);
  return [...body, route.handle(ctx)];
}
