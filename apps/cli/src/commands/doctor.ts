import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Flags } from '@oclif/core';
import type { ModelSettings } from '@junction/agent-core/models';
import type { Config } from '@junction/config-templates';
import type { AgentSummary, Store } from '@junction/store';
import { JunctionCommand } from '../base-command.js';
import type { CliContext } from '../context.js';

/** How a check ended: any `fail` makes the command exit 1; a `warn` does not. */
export type DoctorStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  name: string;
  status: DoctorStatus;
  message: string;
}

export interface DoctorReport {
  checks: DoctorCheck[];
  /** False when any check failed. */
  ok: boolean;
}

/** Records one check and prints its line. */
type Report = (name: string, status: DoctorStatus, message: string) => void;

/** The listeners `junction serve` binds, in the order it binds them. */
const LISTENERS = [
  {
    name: 'api',
    what: 'REST API',
    flag: '--api-port',
    key: 'api.port',
    variable: 'JUNCTION_API_PORT',
  },
  {
    name: 'mcp',
    what: 'MCP over HTTP',
    flag: '--mcp-port',
    key: 'mcp.port',
    variable: 'JUNCTION_MCP_PORT',
  },
  {
    name: 'webhook',
    what: 'webhook routes',
    flag: '--webhook-port',
    key: 'webhook.port',
    variable: 'JUNCTION_WEBHOOK_PORT',
  },
] as const;

type Listener = (typeof LISTENERS)[number];

/** How long a port held by something is asked whether it is a Junction. */
const HEALTH_PROBE_MS = 2_000;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function portOf(config: Config, listener: Listener): number {
  return listener.name === 'api'
    ? config.api.port
    : listener.name === 'mcp'
      ? config.mcp.port
      : config.webhook.port;
}

/** Binds `host:port` for a moment the way `junction serve` will; the bind error, if any. */
function tryBind(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** The version of the Junction answering `/health` at `host:port`, or undefined when none does. */
async function junctionAt(host: string, port: number): Promise<string | undefined> {
  const address =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  try {
    const res = await fetch(`http://${address}:${port}/health`, {
      signal: AbortSignal.timeout(HEALTH_PROBE_MS),
    });
    const body = (await res.json()) as { status?: unknown; version?: unknown };
    const isJunction =
      (body.status === 'healthy' || body.status === 'unhealthy') &&
      typeof body.version === 'string';
    return isJunction ? (body.version as string) : undefined;
  } catch {
    return undefined;
  }
}

/** Every agent in the store, all environments, page by page. */
async function allAgents(store: Store): Promise<AgentSummary[]> {
  const agents: AgentSummary[] = [];
  for (let offset = 0; ; ) {
    const page = await store.agents.listSummaries({ limit: 1000, offset });
    agents.push(...page.items);
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.total) return agents;
  }
}

export default class Doctor extends JunctionCommand {
  static override description =
    'Check that this machine can run Junction: the config loads, the store opens and is migrated, every ' +
    "agent's model has its provider key, each environment's tool servers start (a dry-run sync), the " +
    'REST, MCP and webhook ports are free, and nats-server is on PATH. One line per check: ok, warn or ' +
    'fail. Exits 1 when any check fails. Never prints a key.';

  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --timeout 10 --json',
  ];

  static override flags = {
    timeout: Flags.integer({
      description: 'seconds to wait for each tool server to start and list its tools',
      default: 30,
      min: 1,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<DoctorReport> {
    const { flags } = await this.parse(Doctor);
    const { visibleText } = await import('@junction/config-templates');
    const { collectSecretValues } = await import('@junction/telemetry');
    const { secretRedactor } = await import('@junction/agent-core/models');
    // Every message passes a redactor: a config problem or a server's stderr can quote a key.
    // It starts with the environment's secrets and gains the config's once that has loaded.
    let redactor = secretRedactor(collectSecretValues(process.env));
    const checks: DoctorCheck[] = [];
    const report: Report = (name, status, message) => {
      const check = { name, status, message: redactor.text(message) };
      checks.push(check);
      // One line per check: a multi-line message (a config's list of problems) is joined.
      const line = check.message
        .split('\n')
        .map((part) => part.trim())
        .filter((part) => part !== '')
        .join(' ');
      this.log(`${status.padEnd(4)}  ${name.padEnd(14)}  ${visibleText(line)}`);
    };

    const { createContext } = await import('../context.js');
    let ctx: CliContext | undefined;
    try {
      ctx = await createContext();
      const { configFile } = ctx.paths;
      report(
        'config',
        'ok',
        existsSync(configFile)
          ? `${configFile} is valid`
          : `no ${configFile}: the defaults apply (\`junction init\` writes one)`,
      );
    } catch (err) {
      report('config', 'fail', messageOf(err));
    }
    try {
      if (ctx === undefined) {
        for (const name of ['store', 'models', 'tools', 'ports'])
          report(name, 'warn', 'skipped: it needs the config, which did not load (see above)');
      } else {
        const { modelSettingsOf, secretsOf } = await import('@junction/service-kit');
        const { modelSecrets } = await import('@junction/agent-core/models');
        const settings = modelSettingsOf(ctx.config);
        redactor = secretRedactor([
          ...collectSecretValues(process.env),
          ...secretsOf(ctx.config, process.env),
          ...modelSecrets(settings, process.env),
        ]);
        const store = await this.#checkStore(ctx, report);
        if (store === undefined) {
          for (const name of ['models', 'tools'])
            report(name, 'warn', 'skipped: it needs the store, which did not open (see above)');
        } else {
          // Reading the agents can still fail (a store shared with a busy writer): that is a line too.
          await this.#checkModels(ctx.config, settings, store, report).catch((err: unknown) =>
            report('models', 'fail', messageOf(err)),
          );
          await this.#checkTools(ctx, store, flags.timeout, report);
        }
        await this.#checkPorts(ctx.config, report);
      }
      // The same search the coding bus makes when it starts its own server.
      const { findNatsServer } = await import('@junction/coding-bus');
      const serverPath = ctx?.config.coding.nats.server_path;
      const nats = findNatsServer(serverPath);
      if (nats === undefined) {
        report(
          'nats-server',
          'warn',
          serverPath !== undefined
            ? `not found at coding.nats.server_path ${serverPath}: the coding bus (coding.backend opencode-nats) needs it; fix the path or install it (apt-get install nats-server)`
            : 'not found on PATH or in /usr/sbin: the coding bus (coding.backend opencode-nats) needs it; install it (apt-get install nats-server)',
        );
      } else {
        report('nats-server', 'ok', nats);
      }
    } finally {
      await ctx?.close();
    }

    const failed = checks.filter((c) => c.status === 'fail').length;
    const result: DoctorReport = { checks, ok: failed === 0 };
    if (failed > 0) {
      if (this.jsonEnabled()) this.logJson(result);
      else
        this.logToStderr(
          `${failed} check${failed === 1 ? '' : 's'} failed: fix ${failed === 1 ? 'it' : 'them'} as the line${failed === 1 ? ' says' : 's say'}, then run \`junction doctor\` again.`,
        );
      return this.exit(1);
    }
    return result;
  }

  /** Opens the store (which applies pending migrations) and reports the schema it is at. */
  async #checkStore(ctx: CliContext, report: Report): Promise<Store | undefined> {
    try {
      const store = await ctx.store();
      await store.ping();
      const { describeLocation, migrationsFolder } = await import('@junction/store');
      // Opening applied every migration of the journal or failed, so its last one is the schema.
      const journal = JSON.parse(
        readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8'),
      ) as { entries: Array<{ tag: string }> };
      const where =
        store.location.kind === 'memory' ? 'in memory' : describeLocation(store.location);
      report(
        'store',
        'ok',
        `${where} opened and migrated (${journal.entries.length} migrations, latest ${journal.entries.at(-1)?.tag ?? 'none'})`,
      );
      return store;
    } catch (err) {
      report('store', 'fail', messageOf(err));
      return undefined;
    }
  }

  /** Runs every stored agent through the model check every run passes before it is written. */
  async #checkModels(
    config: Config,
    settings: ModelSettings,
    store: Store,
    report: Report,
  ): Promise<void> {
    const { createModelCheck } = await import('@junction/agent-core/models');
    const checkModel = createModelCheck(settings, process.env);
    const agents = await allAgents(store);
    if (agents.length === 0) {
      // No agent is synced yet: the model they get unless their prompt file names one.
      try {
        checkModel({ name: '', model: null });
        report(
          'models',
          'ok',
          `no agents synced yet (\`junction sync <env>\`); the default model ${config.ai_model} (ai_model) can run`,
        );
      } catch (err) {
        report(
          'models',
          'fail',
          `the default model ${config.ai_model} (ai_model): ${messageOf(err)}`,
        );
      }
      return;
    }
    const runnable = new Set<string>();
    for (const agent of agents) {
      const model = agent.model ?? `${config.ai_model} (ai_model)`;
      try {
        checkModel(agent);
        runnable.add(model);
      } catch (err) {
        report(
          'models',
          'fail',
          `agent "${agent.name}" (environment ${agent.environmentName}), model ${model}: ${messageOf(err)}`,
        );
      }
    }
    if (runnable.size > 0) {
      report('models', 'ok', `can run: ${[...runnable].sort().join(', ')}`);
    }
  }

  /** A dry-run sync of every environment: templates render and every tool server starts. */
  async #checkTools(
    ctx: CliContext,
    store: Store,
    timeoutSeconds: number,
    report: Report,
  ): Promise<void> {
    const { McpClientPool } = await import('@junction/agent-core/mcp');
    const { syncEnvironment } = await import('@junction/agent-core/sync');
    const environments = await ctx.workspace.listEnvironments();
    if (environments.length === 0) {
      report('tools', 'warn', 'no environments: `junction init` creates the default one');
      return;
    }
    const timeoutMs = timeoutSeconds * 1000;
    for (const environment of environments) {
      const name = `tools ${environment}`;
      const pool = new McpClientPool({
        connectTimeoutMs: timeoutMs,
        requestTimeoutMs: timeoutMs,
        clientName: 'junction',
      });
      try {
        const sync = await syncEnvironment({
          workspace: ctx.workspace,
          store,
          pool,
          environment,
          dryRun: true,
          listTimeoutMs: timeoutMs,
        });
        const started: string[] = [];
        for (const config of sync.configs) {
          // The template's error names its file.
          if (config.error !== undefined) report(name, 'fail', config.error);
          for (const server of config.servers) {
            if (server.status === 'connected') {
              started.push(`${server.name} (${server.tools} tools)`);
            } else {
              report(
                name,
                'fail',
                `server ${server.name} (${config.name}.json) did not start: ${server.error ?? 'no reason given'}`,
              );
            }
          }
        }
        if (sync.configs.length === 0) {
          report(name, 'ok', 'no MCP templates, so no tool servers to start');
        } else if (started.length > 0) {
          report(name, 'ok', `started ${started.join(', ')}`);
        }
      } catch (err) {
        report(name, 'fail', messageOf(err));
      } finally {
        await pool.closeAll();
      }
    }
  }

  /**
   * Binds each port `junction serve` needs. A port held by a running Junction (it answers
   * /health on api.port) is a warning: doctor often runs next to the service. Held by anything
   * else, `junction serve` would exit with PORT_IN_USE, so it fails.
   */
  async #checkPorts(config: Config, report: Report): Promise<void> {
    const host = config.api.host;
    let serving: Promise<string | undefined> | undefined;
    const seen = new Map<number, Listener>();
    for (const listener of LISTENERS) {
      const name = `port ${listener.name}`;
      const port = portOf(config, listener);
      const where = `${host.includes(':') ? `[${host}]` : host}:${port} (${listener.key}, ${listener.what})`;
      const change = `choose another port with \`junction serve ${listener.flag} <port>\`, ${listener.variable} or ${listener.key} in config.yaml`;
      const twin = seen.get(port);
      if (twin !== undefined) {
        report(name, 'fail', `${where} is also ${twin.key}: ${change}`);
        continue;
      }
      seen.set(port, listener);
      const err = await tryBind(host, port);
      if (err === undefined) {
        report(name, 'ok', `${where} is free`);
      } else if (err.code === 'EADDRINUSE') {
        serving ??= junctionAt(host, config.api.port);
        const version = await serving;
        if (version !== undefined) {
          report(
            name,
            'warn',
            `${where} is in use by the Junction ${version} serving here: stop it before another \`junction serve\`, or ${change}`,
          );
        } else {
          report(name, 'fail', `${where} is in use: stop what uses it, or ${change}`);
        }
      } else if (err.code === 'EACCES') {
        report(name, 'fail', `${where} needs privileges to bind: ${change} (1024 or more)`);
      } else if (err.code === 'EADDRNOTAVAIL') {
        report(
          name,
          'fail',
          `${where} cannot be bound: ${host} is not an address of this machine; set api.host (or JUNCTION_HOST) to one, or 0.0.0.0`,
        );
      } else {
        report(name, 'fail', `${where} cannot be bound: ${err.message}`);
      }
    }
  }
}
