import { syncEnvironment, variablesChangedNote } from '@junction/agent-core/sync';
import type { Environment, McpConfig } from '@junction/store';
import { idArg } from '../arguments.js';
import { McpServerError } from '../errors.js';
import { requireConfig, requireEnvironment } from '../lookups.js';
import { defineTool } from '../tool-kit.js';

/** What became of the config the caller named: syncs cover the whole environment. */
function requestedConfig(
  config: McpConfig,
  env: Environment,
  removedConfigs: readonly string[],
): Record<string, unknown> {
  const removed = removedConfigs.includes(config.name);
  return {
    requested_config: { config_id: config.id, name: config.name, removed },
    note: removed
      ? `Config "${config.name}" has no template file in environment "${env.name}" any more, so the sync removed it with its servers and tools. The other configs of "${env.name}" were synced.`
      : `Junction syncs a whole environment at a time: every config of "${env.name}" was synced, not only "${config.name}".`,
  };
}

export const discoverToolsTool = defineTool({
  name: 'discover_tools',
  title: 'Discover MCP tools',
  description:
    'Re-syncs the MCP tool servers of an environment: renders its templates, connects to every server, lists ' +
    'its tools and stores them, then re-binds the agents. Give environment_id, or config_id (from ' +
    'list_mcp_configs) to name the environment through one of its configs; the whole environment is synced ' +
    'either way. Returns each config and server with its outcome (connected or the error) and tool counts.',
  shape: {
    config_id: idArg(
      'config_id',
      'Id of an MCP config (from list_mcp_configs); its environment is synced.',
    ).optional(),
    environment_id: idArg(
      'environment_id',
      'Id of the environment to sync (from list_environments).',
    ).optional(),
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  async run(args, ctx) {
    const { store, workspace, pool, processEnv, logger } = ctx.deps;
    let config: McpConfig | undefined;
    let env: Environment;
    if (args.config_id !== undefined) {
      config = await requireConfig(store, args.config_id);
      if (args.environment_id !== undefined && args.environment_id !== config.environmentId) {
        throw new McpServerError(
          'ARGUMENT_INVALID',
          `MCP config ${config.id} belongs to environment ${config.environmentId}, not ${args.environment_id}. Send only one of config_id and environment_id.`,
          { config_id: config.id, environment_id: args.environment_id },
        );
      }
      env = await requireEnvironment(store, config.environmentId);
    } else if (args.environment_id !== undefined) {
      env = await requireEnvironment(store, args.environment_id);
    } else {
      throw new McpServerError(
        'ARGUMENT_INVALID',
        'Give environment_id (from list_environments) or config_id (from list_mcp_configs) to say what to discover.',
      );
    }
    const report = await syncEnvironment({
      workspace,
      store,
      pool,
      environment: env.name,
      processEnv,
      logger,
    });
    const ids = new Map(
      (await store.mcpConfigs.list({ environmentId: env.id })).map((c) => [c.name, c.id]),
    );
    const failed = report.totals.failedServers;
    const variablesNote = variablesChangedNote(report);
    const summary =
      `Synced environment "${env.name}": ${report.totals.servers} server(s), ${report.totals.tools} tool(s)` +
      (failed > 0 ? `, ${failed} server(s) failed (see their error).` : '.') +
      (variablesNote === undefined ? '' : ` ${variablesNote}`);
    return {
      summary,
      data: {
        environment: env.name,
        environment_id: env.id,
        ok: report.ok,
        scope: 'environment',
        ...(config ? requestedConfig(config, env, report.removedConfigs) : {}),
        configs: report.configs.map((c) => ({
          config_id: ids.get(c.name) ?? null,
          name: c.name,
          status: c.status,
          error: c.error ? ctx.redactText(c.error) : null,
          change: c.change,
          servers: c.servers.map((s) => ({
            name: s.name,
            transport: s.transport,
            status: s.status,
            error: s.error ? ctx.redactText(s.error) : null,
            change: s.change,
            tools: s.tools,
            tools_added: s.toolsAdded,
            tools_removed: s.toolsRemoved,
          })),
        })),
        removed_configs: report.removedConfigs,
        removed_servers: report.removedServers,
        agents: report.agents.map((a) => ({
          name: a.name,
          status: a.status,
          error: a.error ? ctx.redactText(a.error) : null,
        })),
        removed_agents: report.removedAgents,
        variables_changed: report.variablesChanged,
        totals: {
          configs: report.totals.configs,
          servers: report.totals.servers,
          failed_servers: report.totals.failedServers,
          tools: report.totals.tools,
          agents: report.totals.agents,
          failed_agents: report.totals.failedAgents,
        },
      },
    };
  },
});
