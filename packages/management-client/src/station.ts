// What the platform may ask of this station, answered from the store: its agents, tools,
// environments and one agent's details; and an execution, started through the run door like
// every other run (source `management`), audited, and answered queued → running → done.
import { agentView } from '@junction/agent-core/agents';
import type { RunDoor, SubmittedRun } from '@junction/agent-core/runs';
import type { Agent, Run, RunReader, Store } from '@junction/store';
import { SpanKind, withSpan, type Logger, type Redactor, type Tracer } from '@junction/telemetry';
import { ManagementRequestError, type Reply, type StationService } from './channel.js';
import {
  fieldsOf,
  timestamp,
  type AgentInfo,
  type ExecuteAgentRequest,
  type ExecutionStatus,
  type McpServerInfo,
  type PlatformRequestKind,
  type ToolInfo,
} from './messages.js';
import { toolCallsOf, tokenUsageOf } from './run-report.js';

/** The longest list sent in one answer. */
const MAX_ITEMS = 10_000;
/** Longest wait for an execution when neither the platform nor the config bounds it. */
const DEFAULT_EXECUTION_WAIT_MS = 30 * 60 * 1000;

/**
 * The slice of the store the station reads (agents, tools, environments, a run's events) and
 * audits executions in. Runs are only read: an execution starts through the run door.
 */
export type StationStore = Pick<
  Store,
  'environments' | 'agents' | 'tools' | 'mcpServers' | 'schedules' | 'runEvents' | 'auditLog'
> & { readonly runs: RunReader };

export interface StationOptions {
  store: StationStore;
  runs: RunDoor;
  logger: Logger;
  /** Removes secrets from what leaves the station (server arguments, audit rows). */
  redactor: Redactor;
  /** The config's run time limit, to bound the wait for an execution. */
  runTimeoutMs?: number;
  /** Each platform request is a span (`management.request`); the run an execution starts nests under it. */
  tracer?: Tracer;
}

/** Span of one request of the management platform handled by the station. */
export const SPAN_MANAGEMENT_REQUEST = 'management.request';

type Fields = Record<string, unknown>;

function agentInfo(agent: Agent, environment: string, tools: string[]): AgentInfo {
  return {
    id: String(agent.id),
    name: agent.name,
    description: agent.description,
    model_name: agent.model ?? '',
    max_steps: agent.maxSteps ?? 0,
    assigned_tools: tools,
    environment_name: environment,
    schedule_enabled: agent.scheduleEnabled,
    cron_schedule: agent.scheduleCron ?? '',
    updated_at: timestamp(agent.updatedAt),
  };
}

/** The platform's execute answer for a run status. */
function executionStatus(run: Run): ExecutionStatus {
  switch (run.status) {
    case 'queued':
      return 'EXECUTION_QUEUED';
    case 'running':
      return 'EXECUTION_RUNNING';
    case 'completed':
      return 'EXECUTION_COMPLETED';
    case 'cancelled':
      return 'EXECUTION_CANCELLED';
    default:
      return 'EXECUTION_FAILED';
  }
}

/** The id of the environment named; `''` means every environment (undefined). */
async function environmentId(
  store: Pick<Store, 'environments'>,
  name: string,
): Promise<number | undefined> {
  if (name === '') return undefined;
  const env = await store.environments.getByName(name);
  if (!env) {
    throw new ManagementRequestError(
      'ENVIRONMENT_NOT_FOUND',
      `no environment named ${JSON.stringify(name)} on this station`,
    );
  }
  return env.id;
}

async function listAgents(
  store: Pick<Store, 'environments' | 'agents'>,
  environment: string,
): Promise<AgentInfo[]> {
  const envId = await environmentId(store, environment);
  const envNames = new Map((await store.environments.list()).map((e) => [e.id, e.name]));
  const list = await store.agents.list({
    ...(envId !== undefined ? { environmentId: envId } : {}),
    limit: MAX_ITEMS,
  });
  return Promise.all(
    list.map(async (a) =>
      agentInfo(
        a,
        envNames.get(a.environmentId) ?? '',
        (await store.agents.listTools(a.id)).map((t) => t.name),
      ),
    ),
  );
}

async function listTools(
  store: Pick<Store, 'environments' | 'tools'>,
  environment: string,
): Promise<{ tools: ToolInfo[]; servers: string[] }> {
  const envId = await environmentId(store, environment);
  const list = await store.tools.list({
    ...(envId !== undefined ? { environmentId: envId } : {}),
    limit: MAX_ITEMS,
  });
  return {
    tools: list.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      mcp_server: t.serverName,
    })),
    servers: [...new Set(list.map((t) => t.serverName))],
  };
}

async function listMcpServers(
  store: Pick<Store, 'mcpServers' | 'tools'>,
  redactor: Redactor,
): Promise<McpServerInfo[]> {
  const list = await store.mcpServers.list();
  const counts = new Map<number, number>();
  for (const t of await store.tools.list({ limit: MAX_ITEMS })) {
    counts.set(t.serverId, (counts.get(t.serverId) ?? 0) + 1);
  }
  return list.map((s) => ({
    name: s.name,
    command: redactor.text(s.command ?? s.url ?? ''),
    args: s.args.map((a) => redactor.text(a)),
    enabled: true,
    tool_count: counts.get(s.id) ?? 0,
  }));
}

/** The agent the platform names: by numeric id, else by name in its environment (or `default`). */
async function findAgent(
  store: Pick<Store, 'agents' | 'environments'>,
  agentId: string,
  environment: string,
): Promise<Agent> {
  const trimmed = agentId.trim();
  if (trimmed === '') throw new ManagementRequestError('AGENT_NOT_FOUND', 'agent_id is empty');
  if (/^\d+$/.test(trimmed)) {
    const agent = await store.agents.get(Number(trimmed));
    if (agent) return agent;
  }
  const envId = await environmentId(store, environment || 'default').catch(() => undefined);
  const byName = envId !== undefined ? await store.agents.getByName(envId, trimmed) : undefined;
  if (byName) return byName;
  throw new ManagementRequestError(
    'AGENT_NOT_FOUND',
    `no agent ${JSON.stringify(trimmed)} on this station${environment ? ` in environment ${JSON.stringify(environment)}` : ''}`,
  );
}

type AuditOutcome = 'success' | 'error' | 'denied';

/** One execute request as read from the platform's payload, with the agent it names. */
interface ExecutionRequest {
  req: Partial<ExecuteAgentRequest>;
  agent: Agent;
  platformRunId: string;
  variables: Record<string, string>;
  /** When the request arrived, for the audit row's duration. */
  started: number;
}

/** Writes an audit row of the execution without waiting for it; a failed write is only logged. */
function auditExecution(
  options: StationOptions,
  execution: ExecutionRequest,
  outcome: AuditOutcome,
  details: Fields,
): void {
  const { store, logger, redactor } = options;
  const { req, variables, started } = execution;
  void store.auditLog
    .record({
      actor: 'management-platform',
      source: 'management',
      transport: 'grpc',
      action: 'execute_agent',
      arguments: redactor.value({
        agent_id: req.agent_id,
        environment: req.environment,
        task: req.task,
        variables,
        timeout_seconds: req.timeout_seconds,
      }),
      outcome,
      durationMs: Date.now() - started,
      details: redactor.value(details),
    })
    .catch((err: unknown) =>
      logger.warn('could not write the audit row of a management execution', {
        error: String(err),
      }),
    );
}

/** Starts the execution through the run door; a refusal is audited and answered as an error. */
async function submitExecution(
  options: StationOptions,
  execution: ExecutionRequest,
): Promise<SubmittedRun> {
  const { req, agent, platformRunId, variables } = execution;
  try {
    return await options.runs.submit(
      {
        agent_id: agent.id,
        task: String(req.task ?? ''),
        variables,
        source: 'management',
        ...(platformRunId !== '' ? { idempotency_key: platformRunId } : {}),
        ...(req.timeout_seconds && req.timeout_seconds > 0
          ? { timeout_seconds: req.timeout_seconds }
          : {}),
      },
      platformRunId !== '' ? { origin: { platformRunId } } : {},
    );
  } catch (err) {
    const message = options.redactor.text(err instanceof Error ? err.message : String(err));
    auditExecution(options, execution, 'error', {
      agent: agent.name,
      platform_run_id: platformRunId,
      error: message,
    });
    throw new ManagementRequestError('EXECUTION_ERROR', message);
  }
}

/** Replies the execute answer for `run` at `status`, with any fields of its end. */
function answerExecution(
  reply: Reply,
  run: Run,
  status: ExecutionStatus,
  extra: Fields = {},
): void {
  reply({
    success: status !== 'EXECUTION_FAILED' && status !== 'EXECUTION_CANCELLED',
    execute_agent_response: {
      execution_id: String(run.id),
      status,
      timestamp: timestamp(new Date()),
      ...extra,
    },
  });
}

/** The run as soon as it has left the queue, polled from the store. */
async function leftQueue(store: { readonly runs: RunReader }, run: Run): Promise<Run> {
  let current = run;
  while (current.status === 'queued') {
    await new Promise((r) => setTimeout(r, 200));
    current = (await store.runs.get(run.id)) ?? current;
  }
  return current;
}

/** How long the execution may run: the platform's bound, else the config's, else the default. */
function executionTimeoutMs(req: Partial<ExecuteAgentRequest>, runTimeoutMs?: number): number {
  return (
    ((req.timeout_seconds ?? 0) > 0 ? req.timeout_seconds! * 1000 : undefined) ??
    runTimeoutMs ??
    DEFAULT_EXECUTION_WAIT_MS
  );
}

async function execute(options: StationOptions, payload: Fields, reply: Reply): Promise<void> {
  const { store, runs } = options;
  const req = payload as Partial<ExecuteAgentRequest>;
  const started = Date.now();
  const agent = await findAgent(store, String(req.agent_id ?? ''), String(req.environment ?? ''));
  const execution: ExecutionRequest = {
    req,
    agent,
    platformRunId: String(req.run_id ?? ''),
    variables: fieldsOf(req.variables) as Record<string, string>,
    started,
  };
  const submitted = await submitExecution(options, execution);
  const run = submitted.run;
  auditExecution(options, execution, 'success', {
    agent: agent.name,
    run_id: run.id,
    platform_run_id: execution.platformRunId,
    replayed: submitted.replayed,
  });
  answerExecution(reply, run, 'EXECUTION_QUEUED');
  // RUNNING once a worker has it (polled; a finished run skips straight to its end).
  const current = await leftQueue(store, run);
  if (current.status === 'running') answerExecution(reply, run, 'EXECUTION_RUNNING');
  const timeoutMs = executionTimeoutMs(req, options.runTimeoutMs);
  const done = await runs.waitFor(run.id, { timeoutMs: timeoutMs + 60_000 });
  const events = await store.runEvents.list(done.id, { limit: 10_000 });
  answerExecution(reply, run, executionStatus(done), {
    partial_response: done.finalResponse ?? done.error ?? '',
    step_number: done.stepsTaken,
    step_description: done.error ?? '',
    tool_calls: toolCallsOf(events),
    token_usage: tokenUsageOf(done),
  });
}

/** The station's environments with their counts and servers; never their variables. */
async function environmentsResponse(
  store: Pick<Store, 'environments' | 'mcpServers'>,
): Promise<Fields> {
  const envs = await store.environments.listWithCounts();
  const servers = await store.mcpServers.list();
  return {
    environments: envs.map((e) => ({
      name: e.name,
      agent_count: e.agents,
      tool_count: e.tools,
      mcp_servers: servers.filter((s) => s.environmentId === e.id).map((s) => s.name),
      // Variables stay on the station: their values are often secrets.
      variables: {},
      is_default: e.name === 'default',
    })),
  };
}

async function agentDetailsResponse(
  store: Pick<Store, 'environments' | 'agents' | 'tools' | 'schedules'>,
  p: Fields,
): Promise<Fields> {
  const agent = await findAgent(store, String(p.agent_id ?? ''), String(p.environment ?? ''));
  const view = await agentView(store, agent);
  return {
    agent: {
      id: String(view.id),
      name: view.name,
      description: view.description,
      prompt_template: '',
      model_name: view.model ?? '',
      max_steps: view.max_steps ?? 0,
      tools: view.tools.map((t) => t.name),
      variables: {},
      tags: [view.environment],
      created_at: timestamp(agent.createdAt),
      updated_at: timestamp(agent.updatedAt),
    },
  };
}

async function handleRequest(
  options: StationOptions,
  kind: PlatformRequestKind,
  payload: unknown,
  reply: Reply,
): Promise<void> {
  const { store } = options;
  const p = fieldsOf(payload);
  switch (kind) {
    case 'list_agents_request': {
      const list = await listAgents(store, String(p.environment ?? ''));
      reply({
        success: true,
        list_agents_response: { agents: list, total_agents: list.length },
      });
      return;
    }
    case 'list_tools_request': {
      const environment = String(p.environment ?? '');
      const found = await listTools(store, environment);
      reply({
        success: true,
        list_tools_response: {
          tools: found.tools,
          environment_name: environment,
          total_tools: found.tools.length,
          mcp_servers: found.servers,
        },
      });
      return;
    }
    case 'get_environments_request':
      reply({ success: true, get_environments_response: await environmentsResponse(store) });
      return;
    case 'get_agent_details_request':
      reply({ success: true, get_agent_details_response: await agentDetailsResponse(store, p) });
      return;
    case 'execute_agent_request':
      await execute(options, p, reply);
      return;
  }
}

/** The station's answers to the platform, read from the store and started through the run door. */
export function createStation(options: StationOptions): StationService {
  const { store, redactor } = options;
  return {
    async describe() {
      const [a, t, servers] = await Promise.all([
        listAgents(store, ''),
        listTools(store, ''),
        listMcpServers(store, redactor),
      ]);
      return { agents: a, tools: t.tools, mcp_servers: servers };
    },
    async handle(kind: PlatformRequestKind, payload: unknown, reply: Reply): Promise<void> {
      const { tracer } = options;
      if (tracer === undefined) return handleRequest(options, kind, payload, reply);
      return withSpan(
        tracer,
        SPAN_MANAGEMENT_REQUEST,
        { 'management.request': kind },
        () => handleRequest(options, kind, payload, reply),
        { kind: SpanKind.SERVER },
      );
    },
  };
}
