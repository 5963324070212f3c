// What the router and the OpenAPI document read of a route: its method and path, its
// parameters and body, the dep it needs, and the answers it documents. `defineRoute` adds the
// handler; this file holds only the data, so the document can be built without the handlers.
import type { z } from 'zod';
import type { QueryParams } from './query-params.js';
import type { ComponentName } from './schemas.js';

/** The group a route is listed under in the OpenAPI document. */
export type RouteTag =
  | 'agents'
  | 'runs'
  | 'environments'
  | 'workflows'
  | 'approvals'
  | 'schedules'
  | 'traces'
  | 'service';

/** One documented answer of a route. */
export interface ResponseSpec {
  description: string;
  /** A components/schemas name (JSON), or a media type with a plain string body. */
  body: ComponentName | { mediaType: string };
  /** The answer carries a Location header: what it points at. */
  location?: string;
}

/** One path parameter; its schema defaults to a positive whole number (an id). */
export interface PathParam {
  name: string;
  description: string;
  schema?: z.ZodType;
}

/** A JSON request body: the router reads it before the handler, the document publishes its schema. */
export interface RouteBody {
  schema: z.ZodType;
  /** True when the body may be left out (an empty POST is an empty object). */
  optional?: boolean;
}

/** The deps a route may need besides those every router has. */
export interface ServedDeps {
  workflows: boolean;
}

export interface RouteSpec<Id extends string = string> {
  operationId: Id;
  method: 'get' | 'post' | 'delete';
  /** Express path; `:name` segments are path parameters. */
  path: string;
  summary: string;
  description: string;
  tag: RouteTag;
  /** False only for /health: answered without an API key. */
  auth: boolean;
  query: QueryParams;
  pathParams: PathParam[];
  body?: RouteBody;
  /** The dep the route is served with: without it the route is neither mounted nor documented. */
  needs?: keyof ServedDeps;
  /** Success and route-specific error answers; 401, 405, 500 and 503 are added for every route. */
  responses: Record<number, ResponseSpec>;
}

/** Whether a router given `served` serves the route: it needs nothing, or its dep was given. */
export function isServed(route: RouteSpec, served: ServedDeps): boolean {
  return route.needs === undefined || served[route.needs];
}
