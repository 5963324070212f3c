import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type {
  AgentDefinition,
  McpServer,
  McpTemplate,
  Workspace,
} from '@junction/config-templates';
import {
  hashTemplate,
  isConfigTemplatesError,
  nextFireTime,
  parseMcpTemplate,
  parsePromptFile,
  renderTemplate,
  templateName,
} from '@junction/config-templates';
import type { Agent, McpConfig, McpServer as StoredServer, Store } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import {
  agentInputOf,
  agentMatches,
  buildToolIndex,
  checkSubAgents,
  resolveTools,
  storedToolIndex,
  type ToolIndex,
  type ToolRef,
} from '../agents/agent-registry.js';
import { AgentCoreError } from '../errors.js';
import type { DiscoveredTool, McpServerSpec } from '../mcp/mcp-client-pool.js';
import { variableChanges } from './variable-changes.js';

/** What sync needs of an MCP client pool. */
export interface ToolLister {
  listTools(
    key: string,
    spec: McpServerSpec,
    options?: { timeoutMs?: number },
  ): Promise<DiscoveredTool[]>;
}

export type Change = 'added' | 'updated' | 'unchanged';

export interface ServerReport {
  name: string;
  config: string;
  transport: 'stdio' | 'http';
  status: 'connected' | 'error';
  error?: string;
  change: Change;
  tools: number;
  toolsAdded: string[];
  toolsRemoved: string[];
}

export interface ConfigReport {
  name: string;
  file: string;
  status: 'synced' | 'error';
  error?: string;
  change: Change;
  servers: ServerReport[];
}

export interface AgentReport {
  name: string;
  file: string;
  status: 'synced' | 'error';
  error?: string;
  change: Change;
  tools: string[];
  agents: string[];
}

export interface SyncReport {
  environment: string;
  dryRun: boolean;
  /** False when any config, server or agent failed. */
  ok: boolean;
  configs: ConfigReport[];
  removedConfigs: string[];
  removedServers: string[];
  agents: AgentReport[];
  removedAgents: string[];
  /**
   * Names in `variables.yml` added, removed or given a new value since the last sync (never
   * values). Servers and runs use a variable's new value only from the sync that stores it.
   */
  variablesChanged: string[];
  totals: {
    configs: number;
    servers: number;
    failedServers: number;
    tools: number;
    agents: number;
    failedAgents: number;
    /** Agents whose prompt file declares a `schedule:` (set in the store unless a dry run). */
    schedules: number;
  };
}

export type SyncProgress =
  /** A server is being started and asked for its tools (`npx` may be downloading it). */
  | {
      type: 'server_start';
      name: string;
      config: string;
      transport: string;
      command: string | null;
    }
  | { type: 'server'; server: ServerReport }
  | { type: 'config'; config: ConfigReport }
  | { type: 'agent'; agent: AgentReport };

/**
 * What a sync reads and writes: the environment's configs, servers, tools, agents and their
 * schedules, and the variables' fingerprint in the settings. Never runs.
 */
export type SyncStore = Pick<
  Store,
  'environments' | 'mcpConfigs' | 'mcpServers' | 'tools' | 'agents' | 'schedules' | 'settings'
>;

export interface SyncOptions {
  workspace: Workspace;
  store: SyncStore;
  pool: ToolLister;
  environment: string;
  processEnv?: NodeJS.ProcessEnv;
  /** Work out and report every change without writing to the store. */
  dryRun?: boolean;
  /** Servers connected at once. */
  concurrency?: number;
  listTimeoutMs?: number;
  logger?: Logger;
  onProgress?: (event: SyncProgress) => void;
  now?: () => Date;
}

interface LoadedConfig {
  name: string;
  file: string;
  hash: string;
  template?: McpTemplate;
  error?: string;
}

interface ServerOutcome {
  report: ServerReport;
  /** The name was taken by an earlier template: nothing of it is stored. */
  duplicate?: boolean;
  spec: McpServerSpec;
  tools: DiscoveredTool[];
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The pool key of a server: environments never share connections. */
export function serverKey(environment: string, server: string): string {
  return `${environment}/${server}`;
}

/** The spec the MCP client pool connects with, from a rendered template entry. */
export function serverSpec(name: string, server: McpServer): McpServerSpec {
  return server.transport === 'stdio'
    ? {
        name,
        transport: 'stdio',
        command: server.command,
        args: server.args,
        env: server.env,
        ...(server.cwd ? { cwd: server.cwd } : {}),
      }
    : { name, transport: 'http', url: server.url, headers: server.headers };
}

/**
 * Renders every template of the environment, first of all: one missing variable anywhere
 * stops the sync before anything is written, with every missing name and file listed.
 */
async function loadConfigs(
  workspace: Workspace,
  environment: string,
  variables: Record<string, string>,
  processEnv: NodeJS.ProcessEnv,
): Promise<LoadedConfig[]> {
  const configs: LoadedConfig[] = [];
  const missing: Array<{ file: string; variables: string[] }> = [];
  for (const file of await workspace.listTemplateFiles(environment)) {
    const source = await readFile(file, 'utf8');
    const config: LoadedConfig = { name: templateName(file), file, hash: hashTemplate(source) };
    try {
      config.template = parseMcpTemplate(
        renderTemplate(source, { variables, processEnv, file }),
        file,
      );
    } catch (err) {
      if (isConfigTemplatesError(err, 'TEMPLATE_VARIABLE_MISSING')) {
        const names = (err.details.missing as Array<{ variables: string[] }>)[0]?.variables ?? [];
        missing.push({ file, variables: names });
      } else {
        config.error = messageOf(err);
      }
    }
    configs.push(config);
  }
  if (missing.length > 0) {
    const lines = missing.map((m) => `  ${m.file}: ${m.variables.join(', ')}`).join('\n');
    throw new AgentCoreError(
      'TEMPLATE_VARIABLE_MISSING',
      `Environment "${environment}" cannot be synced: missing template variables\n${lines}\n` +
        `Add them to ${workspace.variablesFile(environment)} (or the process environment) and sync again. Nothing was changed.`,
      { environment, missing },
    );
  }
  return configs;
}

async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function serverChange(stored: StoredServer | undefined, spec: McpServerSpec): Change {
  if (!stored) return 'added';
  const same =
    stored.transport === spec.transport &&
    (stored.command ?? undefined) === spec.command &&
    JSON.stringify(stored.args ?? []) === JSON.stringify(spec.args ?? []) &&
    JSON.stringify(stored.env ?? {}) === JSON.stringify(spec.env ?? {}) &&
    (stored.cwd ?? undefined) === spec.cwd &&
    (stored.url ?? undefined) === spec.url &&
    JSON.stringify(stored.headers ?? {}) === JSON.stringify(spec.headers ?? {});
  return same ? 'unchanged' : 'updated';
}

/** What every step of one sync reads: the options, resolved once. */
interface SyncContext {
  store: SyncStore;
  pool: ToolLister;
  environment: string;
  dryRun: boolean;
  /** Servers connected at once. */
  concurrency: number;
  listTimeoutMs: number | undefined;
  now: () => Date;
  emit: (event: SyncProgress) => void;
  log: Logger | undefined;
}

/** The environment's rows as the last sync left them; none when a dry run meets a new one. */
interface StoredEnvironment {
  configs: McpConfig[];
  servers: StoredServer[];
  agents: Agent[];
  serverByName: Map<string, StoredServer>;
  /** The stored tool names of each server, by server name. */
  toolsByServer: Map<string, string[]>;
}

/** What the files no longer hold, and the servers that stay. */
interface Removals {
  configNames: string[];
  keepServers: Set<string>;
  removedConfigs: string[];
  removedServers: string[];
}

interface AgentsResult {
  agents: AgentReport[];
  removed: string[];
  schedules: number;
}

/** Stops the sync of an environment without a folder, naming the ones there are. */
async function requireEnvironment(workspace: Workspace, environment: string): Promise<void> {
  if (!(await workspace.hasEnvironment(environment))) {
    const known = await workspace.listEnvironments();
    throw new AgentCoreError(
      'ENVIRONMENT_NOT_FOUND',
      `Environment "${environment}" does not exist (known: ${known.join(', ') || 'none'}). ` +
        `Create it with \`junction env create ${environment}\`.`,
      { environment, known },
    );
  }
}

/** The environment's configs, servers, tools and agents as stored, read once before the sync. */
async function readStoredEnvironment(
  store: SyncStore,
  environmentId: number | undefined,
): Promise<StoredEnvironment> {
  const none = environmentId === undefined;
  const configs = none ? [] : await store.mcpConfigs.list({ environmentId });
  const servers = none ? [] : await store.mcpServers.list({ environmentId });
  const tools = none ? [] : await store.tools.list({ environmentId, limit: 10_000 });
  const agents = none ? [] : await store.agents.list({ environmentId, limit: 10_000 });
  const serverByName = new Map(servers.map((s) => [s.name, s]));
  const toolsByServer = new Map<string, string[]>();
  for (const t of tools)
    toolsByServer.set(t.serverName, [...(toolsByServer.get(t.serverName) ?? []), t.name]);
  return { configs, servers, agents, serverByName, toolsByServer };
}

function configReport(config: LoadedConfig, storedConfigs: McpConfig[]): ConfigReport {
  const storedConfig = storedConfigs.find((c) => c.name === config.name);
  return {
    name: config.name,
    file: config.file,
    status: config.error ? 'error' : 'synced',
    ...(config.error ? { error: config.error } : {}),
    change: !storedConfig
      ? 'added'
      : storedConfig.templateHash === config.hash
        ? 'unchanged'
        : 'updated',
    servers: [],
  };
}

/** Connects the servers of every readable template, a few at a time, and reports each config. */
async function connectConfigs(
  sync: SyncContext,
  configs: LoadedConfig[],
  stored: StoredEnvironment,
): Promise<{ reports: ConfigReport[]; outcomes: ServerOutcome[] }> {
  // Servers named twice across templates: the first file (in name order) keeps the name.
  const owner = new Map<string, string>();
  const reports: ConfigReport[] = [];
  const outcomes: ServerOutcome[] = [];
  for (const config of configs) {
    const report = configReport(config, stored.configs);
    reports.push(report);
    if (!config.template) continue;
    const entries = Object.entries(config.template.servers);
    const results = await mapLimit(entries, sync.concurrency, (entry) =>
      connectServer(sync, stored, owner, config.name, entry),
    );
    report.servers = results.map((r) => r.report);
    outcomes.push(...results.filter((r) => !r.duplicate));
    sync.emit({ type: 'config', config: report });
  }
  return { reports, outcomes };
}

/** A server whose name an earlier template took: reported, never connected or stored. */
function duplicateServer(
  spec: McpServerSpec,
  base: Pick<ServerReport, 'name' | 'config' | 'transport'>,
  previous: string,
): ServerOutcome {
  return {
    spec,
    tools: [],
    duplicate: true,
    report: {
      ...base,
      status: 'error',
      error: `Server name "${base.name}" is already defined in ${previous}.json; rename one of them.`,
      change: 'unchanged',
      tools: 0,
      toolsAdded: [],
      toolsRemoved: [],
    },
  };
}

/** Starts one server of `config` and lists its tools; a failure is reported, not thrown. */
async function connectServer(
  sync: SyncContext,
  stored: StoredEnvironment,
  owner: Map<string, string>,
  config: string,
  [name, server]: [string, McpServer],
): Promise<ServerOutcome> {
  const { environment, emit } = sync;
  const spec = serverSpec(name, server);
  const base = { name, config, transport: spec.transport };
  const previous = owner.get(name);
  if (previous && previous !== config) return duplicateServer(spec, base, previous);
  owner.set(name, config);
  const before = stored.toolsByServer.get(name) ?? [];
  const change = serverChange(stored.serverByName.get(name), spec);
  emit({
    type: 'server_start',
    name,
    config,
    transport: spec.transport,
    // The program only: its arguments may carry values from variables.yml.
    command: spec.transport === 'stdio' ? path.basename(spec.command ?? '') || null : null,
  });
  try {
    const tools = await sync.pool.listTools(serverKey(environment, name), spec, {
      ...(sync.listTimeoutMs ? { timeoutMs: sync.listTimeoutMs } : {}),
    });
    const names = tools.map((t) => t.name);
    const outcome: ServerOutcome = {
      spec,
      tools,
      report: {
        ...base,
        status: 'connected',
        change,
        tools: tools.length,
        toolsAdded: names.filter((n) => !before.includes(n)),
        toolsRemoved: before.filter((n) => !names.includes(n)),
      },
    };
    emit({ type: 'server', server: outcome.report });
    return outcome;
  } catch (err) {
    const outcome: ServerOutcome = {
      spec,
      tools: [],
      report: {
        ...base,
        status: 'error',
        error: messageOf(err),
        change,
        // A failed server keeps the tools it had, so agents keep their bindings.
        tools: before.length,
        toolsAdded: [],
        toolsRemoved: [],
      },
    };
    sync.log?.warn('MCP server failed during sync', {
      environment,
      server: name,
      error: outcome.report.error,
    });
    emit({ type: 'server', server: outcome.report });
    return outcome;
  }
}

/**
 * Exactly what disappeared: configs whose file is gone, servers no longer in a readable
 * template. A config that failed to parse keeps its servers until it is fixed.
 */
function findRemovals(
  configs: LoadedConfig[],
  outcomes: ServerOutcome[],
  stored: StoredEnvironment,
): Removals {
  const configNames = configs.map((c) => c.name);
  const brokenConfigs = new Set(configs.filter((c) => !c.template).map((c) => c.name));
  const configIdToName = new Map(stored.configs.map((c) => [c.id, c.name]));
  const keepServers = new Set(outcomes.map((o) => o.report.name));
  for (const s of stored.servers) {
    const cfg = s.configId ? configIdToName.get(s.configId) : undefined;
    if (cfg && brokenConfigs.has(cfg)) keepServers.add(s.name);
  }
  const removedConfigs = stored.configs
    .filter((c) => !configNames.includes(c.name))
    .map((c) => c.name);
  const removedServers = stored.servers.filter((s) => !keepServers.has(s.name)).map((s) => s.name);
  return { configNames, keepServers, removedConfigs, removedServers };
}

/** Writes configs, servers and the tools of connected servers; removes what disappeared. */
async function saveServers(
  store: SyncStore,
  environmentId: number,
  at: Date,
  configs: LoadedConfig[],
  outcomes: ServerOutcome[],
  removals: Removals,
): Promise<void> {
  const configIds = new Map<string, number>();
  for (const config of configs) {
    const row = await store.mcpConfigs.upsert(environmentId, {
      name: config.name,
      path: config.file,
      templateHash: config.hash,
      status: config.template ? 'synced' : 'error',
      lastError: config.error ?? null,
      lastSyncedAt: at,
    });
    configIds.set(config.name, row.id);
  }
  await store.mcpServers.deleteExcept(environmentId, [...removals.keepServers]);
  await store.mcpConfigs.deleteExcept(environmentId, removals.configNames);
  for (const o of outcomes) {
    await saveServer(store, environmentId, o, configIds.get(o.report.config) ?? null);
  }
}

async function saveServer(
  store: SyncStore,
  environmentId: number,
  o: ServerOutcome,
  configId: number | null,
): Promise<void> {
  const s = o.spec;
  const row = await store.mcpServers.upsert(environmentId, {
    name: s.name,
    transport: s.transport,
    configId,
    command: s.command ?? null,
    args: s.args ?? [],
    env: s.env ?? {},
    cwd: s.cwd ?? null,
    url: s.url ?? null,
    headers: s.headers ?? {},
    status: o.report.status,
    lastError: o.report.error ?? null,
  });
  if (o.report.status === 'connected') {
    await store.tools.replaceForServer(
      row.id,
      o.tools.map((t) => ({
        name: t.name,
        ...(t.description !== null ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
        annotations: t.annotations ?? null,
      })),
    );
  }
}

/**
 * The tools a dry run would leave: those of connected servers, the stored ones of failed
 * servers and of servers kept for a broken config.
 */
function plannedToolIndex(
  outcomes: ServerOutcome[],
  stored: StoredEnvironment,
  keepServers: Set<string>,
): ToolIndex {
  const { toolsByServer } = stored;
  const refs: ToolRef[] = [];
  for (const o of outcomes) {
    const names =
      o.report.status === 'connected'
        ? o.tools.map((t) => t.name)
        : (toolsByServer.get(o.report.name) ?? []);
    for (const name of names) refs.push({ name, server: o.report.name });
  }
  for (const s of stored.servers) {
    if (keepServers.has(s.name) && !outcomes.some((o) => o.report.name === s.name)) {
      for (const name of toolsByServer.get(s.name) ?? []) refs.push({ name, server: s.name });
    }
  }
  return buildToolIndex(refs);
}

function syncReport(
  sync: SyncContext,
  configs: ConfigReport[],
  removals: Removals,
  agentResult: AgentsResult,
  variablesChanged: string[],
): SyncReport {
  const servers = configs.flatMap((c) => c.servers);
  return {
    environment: sync.environment,
    dryRun: sync.dryRun,
    ok:
      configs.every((c) => c.status === 'synced') &&
      servers.every((s) => s.status === 'connected') &&
      agentResult.agents.every((a) => a.status === 'synced'),
    configs,
    removedConfigs: removals.removedConfigs,
    removedServers: removals.removedServers,
    agents: agentResult.agents,
    removedAgents: agentResult.removed,
    variablesChanged,
    totals: {
      configs: configs.length,
      servers: servers.length,
      failedServers: servers.filter((s) => s.status === 'error').length,
      tools: servers.reduce((n, s) => n + s.tools, 0),
      agents: agentResult.agents.length,
      failedAgents: agentResult.agents.filter((a) => a.status === 'error').length,
      schedules: agentResult.schedules,
    },
  };
}

/**
 * Syncs one environment: renders its templates, lists the tools of every server, and makes
 * the store match the files: adds what is new, updates what changed, removes exactly what
 * disappeared. A failing config, server or agent is reported while the rest still sync.
 * Files are never written or deleted.
 */
export async function syncEnvironment(options: SyncOptions): Promise<SyncReport> {
  const { workspace, store, environment } = options;
  const sync: SyncContext = {
    store,
    pool: options.pool,
    environment,
    dryRun: options.dryRun ?? false,
    concurrency: options.concurrency ?? 4,
    listTimeoutMs: options.listTimeoutMs,
    now: options.now ?? (() => new Date()),
    emit: options.onProgress ?? ((): void => undefined),
    log: options.logger,
  };
  const { dryRun, now } = sync;

  await requireEnvironment(workspace, environment);
  const variables = await workspace.readVariables(environment);
  const configs = await loadConfigs(
    workspace,
    environment,
    variables,
    options.processEnv ?? process.env,
  );
  const changes = await variableChanges(store, environment, variables);

  const env = dryRun
    ? await store.environments.getByName(environment)
    : await store.environments.ensure(environment);
  const stored = await readStoredEnvironment(store, env?.id);
  const { reports, outcomes } = await connectConfigs(sync, configs, stored);
  const removals = findRemovals(configs, outcomes, stored);
  if (!dryRun && env) await saveServers(store, env.id, now(), configs, outcomes, removals);

  // Agents resolve against the environment's tools as they are after this sync.
  const toolIndex =
    !dryRun && env
      ? await storedToolIndex(store, env.id)
      : plannedToolIndex(outcomes, stored, removals.keepServers);
  const agentResult = await syncAgents({
    store,
    workspace,
    environment,
    environmentId: env?.id,
    storedAgents: stored.agents,
    toolIndex,
    dryRun,
    emit: sync.emit,
    now,
  });

  if (!dryRun && env) {
    await store.environments.markSynced(env.id, now());
    await changes.record();
  }

  const report = syncReport(sync, reports, removals, agentResult, changes.changed);
  sync.log?.info('environment synced', {
    environment,
    dry_run: dryRun,
    ok: report.ok,
    variables_changed: changes.changed,
    ...report.totals,
  });
  return report;
}

interface SyncAgentsInput {
  store: SyncStore;
  workspace: Workspace;
  environment: string;
  environmentId: number | undefined;
  storedAgents: Agent[];
  toolIndex: ToolIndex;
  dryRun: boolean;
  emit: (event: SyncProgress) => void;
  now: () => Date;
}

async function syncAgents(input: SyncAgentsInput): Promise<AgentsResult> {
  const { store, workspace, environment, environmentId, storedAgents, toolIndex, dryRun } = input;
  const files = await workspace.listPromptFiles(environment);
  const storedByName = new Map(storedAgents.map((a) => [a.name, a]));
  const reports = new Map<string, AgentReport>();
  const defs = new Map<string, AgentDefinition>();
  const bound = new Map<string, ToolRef[]>();
  const presentNames = new Set<string>();
  const failed: AgentReport[] = [];

  for (const file of files) {
    const stem = path.basename(file, '.prompt');
    presentNames.add(stem);
    let def: AgentDefinition;
    try {
      def = await parsePromptFile(file);
    } catch (err) {
      failed.push({
        name: stem,
        file,
        status: 'error',
        error: messageOf(err),
        change: 'unchanged',
        tools: [],
        agents: [],
      });
      continue;
    }
    presentNames.add(def.name);
    const base = { name: def.name, file, tools: def.tools, agents: def.agents };
    if (defs.has(def.name)) {
      failed.push({
        ...base,
        status: 'error',
        error: `Agent name "${def.name}" is also used by ${defs.get(def.name)?.path}; names must be unique in an environment.`,
        change: 'unchanged',
      });
      continue;
    }
    try {
      bound.set(def.name, resolveTools(def, toolIndex));
      defs.set(def.name, def);
    } catch (err) {
      failed.push({ ...base, status: 'error', error: messageOf(err), change: 'unchanged' });
    }
  }
  // Sub-agents must be agents that sync now; drop failures until nothing changes.
  let changed = true;
  while (changed) {
    changed = false;
    for (const [name, def] of defs) {
      try {
        checkSubAgents(def, new Set(defs.keys()));
      } catch (err) {
        failed.push({
          name,
          file: def.path,
          tools: def.tools,
          agents: def.agents,
          status: 'error',
          error: messageOf(err),
          change: 'unchanged',
        });
        defs.delete(name);
        changed = true;
      }
    }
  }

  const ids = new Map<string, number>();
  for (const [name, def] of defs) {
    const stored = storedByName.get(name);
    let change: Change = 'added';
    if (stored) {
      const toolIds = await store.agents.getToolIds(stored.id);
      const subIds = await store.agents.getSubAgentIds(stored.id);
      const newToolIds = (bound.get(name) ?? []).map((t) => t.id);
      const sameTools =
        !dryRun && JSON.stringify([...toolIds].sort()) === JSON.stringify([...newToolIds].sort());
      const subNames = subIds.map((id) => storedAgents.find((a) => a.id === id)?.name).sort();
      const sameSubs = JSON.stringify(subNames) === JSON.stringify([...def.agents].sort());
      change =
        agentMatches(stored, def) && (dryRun || sameTools) && sameSubs ? 'unchanged' : 'updated';
    }
    reports.set(name, {
      name,
      file: def.path,
      status: 'synced',
      change,
      tools: def.tools,
      agents: def.agents,
    });
    if (!dryRun && environmentId !== undefined) {
      const agent = await store.agents.upsert(environmentId, agentInputOf(def));
      ids.set(name, agent.id);
      await store.agents.setToolIds(
        agent.id,
        (bound.get(name) ?? []).map((t) => t.id as number),
      );
    }
  }
  if (!dryRun && environmentId !== undefined) {
    for (const [name, def] of defs) {
      await store.agents.setSubAgentIds(
        ids.get(name) as number,
        def.agents.map((sub) => ids.get(sub) as number),
      );
    }
  }
  const removed = storedAgents.filter((a) => !presentNames.has(a.name)).map((a) => a.name);
  if (!dryRun && environmentId !== undefined) {
    await store.agents.deleteExcept(environmentId, [...presentNames]);
    // An agent that failed this sync keeps its stored row, and so its schedule, until fixed.
    const keep = failed.flatMap((f) => storedByName.get(f.name)?.id ?? []);
    await saveAgentSchedules(store, environmentId, defs, ids, keep, input.now());
  }
  const all = [...reports.values(), ...failed].sort((a, b) => a.name.localeCompare(b.name));
  for (const agent of all) input.emit({ type: 'agent', agent });
  const schedules = [...defs.values()].filter((d) => d.schedule !== undefined).length;
  return { agents: all, removed, schedules };
}

/**
 * Makes the file schedules of an environment's agents match their prompt files: one per
 * `schedule:` block, none for an agent without one. Schedules an operator set stay as they are.
 */
async function saveAgentSchedules(
  store: SyncStore,
  environmentId: number,
  defs: Map<string, AgentDefinition>,
  ids: Map<string, number>,
  keep: number[],
  now: Date,
): Promise<void> {
  const scheduled: number[] = [...keep];
  for (const [name, def] of defs) {
    const schedule = def.schedule;
    const id = ids.get(name);
    if (!schedule || id === undefined) continue;
    const timezone = schedule.timezone ?? null;
    await store.schedules.set(
      { kind: 'agent', id, name, environmentId },
      {
        cron: schedule.cron,
        timezone,
        enabled: schedule.enabled,
        task: schedule.task ?? null,
        variables: schedule.variables,
        catchUp: schedule.catchUp,
        overlap: schedule.overlap,
        origin: 'file',
        nextRunAt: schedule.enabled ? nextFireTime(schedule.cron, timezone, now) : null,
      },
      { keepOperator: true },
    );
    scheduled.push(id);
  }
  await store.schedules.removeFileSchedulesExcept('agent', environmentId, scheduled);
}
