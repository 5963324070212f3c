// What the REST router is built from. Everything comes in here; nothing is a module singleton.
import { createPricing, type Pricing, type RunDoor } from '@junction/agent-core/runs';
import type { RunReader, Store } from '@junction/store';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger, Metrics } from '@junction/telemetry';
import type { WorkflowDoor } from '@junction/workflows';
import type { Scheduler } from '@junction/scheduler';
import type {
  ManagementState,
  QueueHealthBody,
  TracesHealthBody,
  WorkersHealthBody,
} from './schemas.js';

/** What the API needs of its keys: whether one is needed, the key a request presents, a constant-time match. */
export interface ApiKeyRing {
  readonly required: boolean;
  /** Bearer credential or X-API-Key; '' for an unusable one; undefined when none is sent. */
  presented(headers: IncomingHttpHeaders): string | undefined;
  matches(key: string): boolean;
}

/** Default largest request body: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default longest wait for the database in /health before it is reported unhealthy. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 3000;

/**
 * The slice of the store the REST API reads and writes: it reads runs and never writes one (a
 * run is queued and cancelled through the run door, `runs`; workflow runs through `workflows`).
 */
export type RestStore = Pick<
  Store,
  | 'ping'
  | 'sizeBytes'
  | 'environments'
  | 'agents'
  | 'tools'
  | 'mcpServers'
  | 'runEvents'
  | 'schedules'
  | 'workflows'
  | 'workflowRuns'
  | 'approvals'
  | 'spans'
> & { readonly runs: RunReader };

export interface RestDeps {
  store: RestStore;
  /** The one door for runs: POST …/queue submits through it, POST …/cancel cancels. */
  runs: Pick<RunDoor, 'submit' | 'cancel'>;
  /**
   * The one door for workflow runs and approvals (`composeService`'s `workflows`). Without it
   * the workflow routes are not mounted and the OpenAPI document does not list them.
   */
  workflows?: WorkflowDoor;
  logger: Logger;
  /** Read by GET /metrics; the router sets its gauge sources (see createRestRouter). */
  metrics: Metrics;
  /** Service version reported by /health and the OpenAPI document. */
  version: string;
  /** Start of the process, for /health's uptime. */
  startedAt: Date;
  /**
   * The accepted keys (api.keys plus JUNCTION_API_KEY), as service-kit's `keyRing` holds them;
   * absent or empty = no authentication.
   */
  keys?: ApiKeyRing;
  /** Known secret values removed from every answer (service-kit's `secretsOf`). */
  secrets?: readonly string[];
  /** Whether this process's workers run; undefined when the process runs none (scheduler "disabled"). */
  workersRunning?: () => boolean;
  /**
   * This process's scheduler (`composeService`'s): /health reports its status, and the schedule
   * routes fire a schedule now and tell it of changes. Without it /health says `disabled` and
   * run-now is refused.
   */
  scheduler?: Pick<Scheduler, 'status' | 'fire' | 'changed'>;
  /** The management channel's state for /health; without it `disabled`. */
  management?: () => ManagementState;
  /** Where traces go, for /health; without it `nowhere`. */
  traces?: () => TracesHealthBody;
  /** What this process works on, for /health; without it no workers. */
  workers?: () => WorkersHealthBody;
  /**
   * Told whenever a run of any host is written, claimed or ends (the run bus): run streams look
   * at the store at once instead of only every RUN_STREAM_POLL_MS.
   */
  runChanges?: { connected(): boolean; subscribe(listener: () => void): () => void };
  /** The run bus, for /health; without it none. */
  queue?: () => QueueHealthBody;
  /** Live MCP connections for the `mcp_servers_active` gauge; default: servers whose last sync connected. */
  mcpServersActive?: () => number;
  /** Largest accepted request body in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Longest wait for the database in /health. Default 3 s. */
  healthTimeoutMs?: number;
  /** Clock. Default `() => new Date()`. */
  now?: () => Date;
  /** Prices of the runs' `cost_usd` (createPricing of config.yaml's `pricing`). Default: the built-in list prices. */
  pricing?: Pricing;
}

/** Deps with their defaults filled in. */
export interface ResolvedDeps extends RestDeps {
  maxBodyBytes: number;
  healthTimeoutMs: number;
  now: () => Date;
  pricing: Pricing;
}

/** Fills in the defaults. */
export function resolveDeps(deps: RestDeps): ResolvedDeps {
  return {
    ...deps,
    maxBodyBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    healthTimeoutMs: deps.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    now: deps.now ?? ((): Date => new Date()),
    pricing: deps.pricing ?? createPricing(),
  };
}
