import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { resolvePaths, Workspace } from '@junction/config-templates';
import { openStore, type Schedule, type Store } from '@junction/store';
import { McpClientPool } from '../src/mcp/mcp-client-pool.js';
import {
  syncEnvironment,
  type SyncProgress,
  type SyncReport,
} from '../src/sync/sync-environment.js';
import { variablesChangedNote } from '../src/sync/variable-changes.js';
import { fixtureServerPath } from './fixture-server.js';

const require = createRequire(import.meta.url);
const filesystemServer = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

let home: string;
let workspace: Workspace;
let store: Store;
let pool: McpClientPool;
const ENV = 'default';

function envDir(): string {
  return workspace.environmentDir(ENV);
}

function writeTemplate(name: string, servers: Record<string, unknown>): void {
  writeFileSync(
    path.join(envDir(), `${name}.json`),
    JSON.stringify({ mcpServers: servers }, null, 2),
  );
}

function fixture(...args: string[]): Record<string, unknown> {
  return { command: process.execPath, args: [fixtureServerPath, ...args] };
}

function writeAgent(
  name: string,
  frontMatter: string,
  body = '{{role "system"}}\nYou help.\n{{role "user"}}\n{{userInput}}\n',
): void {
  writeFileSync(
    path.join(envDir(), 'agents', `${name}.prompt`),
    `---\n${frontMatter}\n---\n${body}`,
  );
}

async function sync(
  extra: Partial<Parameters<typeof syncEnvironment>[0]> = {},
): Promise<SyncReport> {
  return syncEnvironment({ workspace, store, pool, environment: ENV, processEnv: {}, ...extra });
}

async function toolNames(server: string): Promise<string[]> {
  const env = await store.environments.getByName(ENV);
  const s = await store.mcpServers.getByName(env!.id, server);
  if (!s) return [];
  return (await store.tools.list({ serverId: s.id })).map((t) => t.name).sort();
}

// Fixture tool servers are node processes: on a loaded machine one can take seconds to start.
// A time limit here only guards against a hang; the test of a hanging server sets its own.
const SLOW_START_MS = 60_000;

beforeEach(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-sync-'));
  workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
  await workspace.init();
  // The example agent of `init` is not what these tests are about.
  for (const f of readdirSync(path.join(envDir(), 'agents')))
    rmSync(path.join(envDir(), 'agents', f));
  for (const f of readdirSync(envDir()).filter((f) => f.endsWith('.json')))
    rmSync(path.join(envDir(), f));
  store = await openStore({ url: ':memory:' });
  pool = new McpClientPool({ connectTimeoutMs: SLOW_START_MS, requestTimeoutMs: SLOW_START_MS });
});

afterEach(async () => {
  await pool.closeAll();
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('syncEnvironment', () => {
  it('stores configs, servers, tools and agents from a full sync, with progress as it goes', async () => {
    writeTemplate('local', {
      calc: fixture('--tools', 'add,echo'),
      files: { command: process.execPath, args: [filesystemServer, home] },
    });
    writeAgent(
      'helper',
      'model: openai/gpt-4o-mini\nmetadata:\n  description: Adds numbers\ntools: [add, __echo, list_directory]',
    );
    const events: SyncProgress[] = [];
    const report = await sync({ onProgress: (e) => events.push(e) });

    expect(report.ok).toBe(true);
    expect(report.configs).toHaveLength(1);
    expect(report.configs[0]!.servers.map((s) => [s.name, s.status]).sort()).toEqual([
      ['calc', 'connected'],
      ['files', 'connected'],
    ]);
    expect(await toolNames('calc')).toEqual(['add', 'echo']);
    expect(await toolNames('files')).toContain('list_directory');
    const env = await store.environments.getByName(ENV);
    expect(env!.lastSyncedAt).toBeInstanceOf(Date);
    const agent = await store.agents.getByName(env!.id, 'helper');
    expect(agent!.model).toBe('openai/gpt-4o-mini');
    expect((await store.agents.listTools(agent!.id)).map((t) => t.name).sort()).toEqual([
      'add',
      'echo',
      'list_directory',
    ]);
    expect(events.filter((e) => e.type === 'server')).toHaveLength(2);
    // Each server is announced as it starts, before its outcome, naming only its program.
    const starts = events.filter((e) => e.type === 'server_start');
    expect(starts.map((e) => e.name).sort()).toEqual(['calc', 'files']);
    for (const start of starts) {
      const done = events.findIndex((e) => e.type === 'server' && e.server.name === start.name);
      expect(events.indexOf(start)).toBeLessThan(done);
      expect(start.command).toMatch(/^[^/\s]+$/);
    }
    expect(events.some((e) => e.type === 'agent' && e.agent.name === 'helper')).toBe(true);
  });

  it('re-sync removes exactly the tool that disappeared and keeps the agent binding ids', async () => {
    writeTemplate('local', { calc: fixture('--tools', 'add,echo,upper') });
    writeAgent('helper', 'tools: [add]');
    await sync();
    const env = await store.environments.getByName(ENV);
    const before = await store.tools.list({ environmentId: env!.id });
    const addId = before.find((t) => t.name === 'add')!.id;

    await pool.closeAll();
    pool = new McpClientPool({ connectTimeoutMs: SLOW_START_MS });
    writeTemplate('local', { calc: fixture('--tools', 'add,echo') });
    const report = await sync();
    expect(report.configs[0]!.servers[0]!.toolsRemoved).toEqual(['upper']);
    expect(await toolNames('calc')).toEqual(['add', 'echo']);
    const agent = await store.agents.getByName(env!.id, 'helper');
    expect(await store.agents.getToolIds(agent!.id)).toEqual([addId]);
  });

  it('removes servers and configs whose templates are gone, and agents whose files are gone', async () => {
    writeTemplate('one', { a: fixture('--tools', 'add') });
    writeTemplate('two', { b: fixture('--tools', 'echo') });
    writeAgent('keep', 'tools: [add]');
    writeAgent('gone', 'tools: [echo]');
    await sync();
    rmSync(path.join(envDir(), 'two.json'));
    rmSync(path.join(envDir(), 'agents', 'gone.prompt'));
    const report = await sync();
    expect(report.removedConfigs).toEqual(['two']);
    expect(report.removedServers).toEqual(['b']);
    expect(report.removedAgents).toEqual(['gone']);
    const env = await store.environments.getByName(ENV);
    expect((await store.mcpServers.list({ environmentId: env!.id })).map((s) => s.name)).toEqual([
      'a',
    ]);
    expect((await store.agents.list({ environmentId: env!.id })).map((a) => a.name)).toEqual([
      'keep',
    ]);
  });

  it('marks a server that exits at start failed with its reason while the others sync', async () => {
    writeTemplate('local', {
      good: fixture('--tools', 'add'),
      dies: fixture('--exit-at-start', '3'),
    });
    const started = Date.now();
    const report = await sync();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(report.ok).toBe(false);
    const dies = report.configs[0]!.servers.find((s) => s.name === 'dies')!;
    expect(dies.status).toBe('error');
    expect(dies.error).toMatch(/exit/i);
    const env = await store.environments.getByName(ENV);
    const stored = await store.mcpServers.getByName(env!.id, 'dies');
    expect(stored!.status).toBe('error');
    expect(stored!.lastError).toMatch(/exit/i);
    expect(await toolNames('good')).toEqual(['add']);
  });

  it('times out a server that hangs without hanging the sync', async () => {
    writeTemplate('local', { stuck: fixture('--hang'), good: fixture('--tools', 'echo') });
    // A timeout the good server meets even on a loaded machine; the stuck one never answers.
    await pool.closeAll();
    pool = new McpClientPool({ connectTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
    const report = await sync();
    const stuck = report.configs[0]!.servers.find((s) => s.name === 'stuck')!;
    expect(stuck.status).toBe('error');
    expect(stuck.error).toMatch(/time/i);
    expect(report.totals.failedServers).toBe(1);
    expect(await toolNames('good')).toEqual(['echo']);
  });

  it('refuses to sync with missing variables, lists every one, and writes nothing', async () => {
    writeFileSync(
      path.join(envDir(), 'a.json'),
      JSON.stringify({
        mcpServers: { a: { command: 'x', args: ['{{ .FIRST }}', '{{ .SECOND }}'] } },
      }),
    );
    writeFileSync(
      path.join(envDir(), 'b.json'),
      JSON.stringify({ mcpServers: { b: { url: 'http://127.0.0.1/{{ .THIRD }}' } } }),
    );
    await expect(sync()).rejects.toMatchObject({
      code: 'TEMPLATE_VARIABLE_MISSING',
      message: expect.stringMatching(/FIRST, SECOND[\s\S]*THIRD/),
    });
    expect(await store.environments.getByName(ENV)).toBeUndefined();
    expect(await store.mcpServers.list()).toEqual([]);
  });

  it('passes a variable full of JSON special characters to the server intact', async () => {
    const value = 'quote " backslash \\ newline \n tab \t unicode é 日本 🚀 {{ braces }}';
    await workspace.writeVariables(ENV, { SPECIAL: value });
    writeFileSync(
      path.join(envDir(), 'local.json'),
      `{"mcpServers": {"calc": {"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(fixtureServerPath)}], "env": {"SPECIAL": "{{ .SPECIAL }}"}}}}`,
    );
    const report = await sync();
    expect(report.ok).toBe(true);
    const env = await store.environments.getByName(ENV);
    const server = await store.mcpServers.getByName(env!.id, 'calc');
    expect(server!.env).toEqual({ SPECIAL: value });
    const result = await pool.callTool(
      'check',
      {
        name: 'calc',
        transport: 'stdio',
        command: server!.command!,
        args: server!.args!,
        env: server!.env!,
      },
      'env_value',
      { name: 'SPECIAL' },
    );
    expect(JSON.stringify(result.content)).toContain(JSON.stringify(value).slice(1, -1));
  });

  // Regression (issue 13, item 15): a new value in variables.yml was unused until the next
  // sync without a word; sync now names the variables that changed since the last one.
  it('names the variables changed since the last sync, never their values', async () => {
    writeFileSync(
      path.join(envDir(), 'local.json'),
      `{"mcpServers": {"calc": {"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(fixtureServerPath)}], "env": {"REGION": "{{ .REGION }}"}}}}`,
    );
    await workspace.writeVariables(ENV, { REGION: 'eu-west-1', API_TOKEN: 'tok-first-value' });
    expect((await sync()).variablesChanged).toEqual([]);
    expect((await sync()).variablesChanged).toEqual([]);

    await workspace.writeVariables(ENV, { REGION: 'us-east-2', EXTRA: 'x' });
    const dry = await sync({ dryRun: true });
    expect(dry.variablesChanged).toEqual(['API_TOKEN', 'EXTRA', 'REGION']);
    expect(variablesChangedNote(dry)).toContain('keep the old values until `junction sync`');
    const real = await sync();
    expect(real.variablesChanged).toEqual(['API_TOKEN', 'EXTRA', 'REGION']);
    expect(real.configs[0]!.servers[0]!.change).toBe('updated');
    expect(variablesChangedNote(real)).toContain('API_TOKEN, EXTRA, REGION');
    expect((await sync()).variablesChanged).toEqual([]);
    const kept = JSON.stringify(await store.settings.get(`sync.variables.${ENV}`));
    expect(kept).not.toContain('us-east-2');
    expect(kept).not.toContain('tok-first-value');
  });

  it('reports an agent naming an unknown tool while the other agents sync', async () => {
    writeTemplate('local', { calc: fixture('--tools', 'add') });
    writeAgent('good', 'tools: [add]');
    writeAgent('bad', 'tools: [add, no_such_tool]');
    const report = await sync();
    expect(report.ok).toBe(false);
    const bad = report.agents.find((a) => a.name === 'bad')!;
    expect(bad.status).toBe('error');
    expect(bad.error).toContain('no_such_tool');
    expect(report.agents.find((a) => a.name === 'good')!.status).toBe('synced');
    const env = await store.environments.getByName(ENV);
    expect(await store.agents.getByName(env!.id, 'good')).toBeDefined();
    expect(await store.agents.getByName(env!.id, 'bad')).toBeUndefined();
  });

  it('reports a broken prompt file beside good ones, keeping the file untouched', async () => {
    writeAgent('good', 'metadata:\n  description: fine');
    const broken = path.join(envDir(), 'agents', 'broken.prompt');
    writeFileSync(broken, '---\nmax_steps: [oops\n---\n{{#if x}}never closed\n');
    const before = readFileSync(broken, 'utf8');
    const report = await sync();
    const b = report.agents.find((a) => a.name === 'broken')!;
    expect(b.status).toBe('error');
    expect(b.error).toContain(broken);
    expect(report.agents.find((a) => a.name === 'good')!.status).toBe('synced');
    expect(readFileSync(broken, 'utf8')).toBe(before);
  });

  // Regression (issue 13, item 14): `metadata.name: ../../evil` synced and registered an agent
  // named `../../evil`; an empty .prompt file became an agent.
  it('reports a path-like agent name and an empty prompt file as failed, registering neither', async () => {
    writeAgent('good', 'metadata:\n  name: AWS Cost Analyst');
    writeAgent('evil', 'metadata:\n  name: ../../evil');
    writeFileSync(path.join(envDir(), 'agents', 'blank.prompt'), '\n');
    const report = await sync();
    expect(report.agents.find((a) => a.name === 'evil')).toMatchObject({ status: 'error' });
    expect(report.agents.find((a) => a.name === 'evil')!.error).toContain('path separator');
    expect(report.agents.find((a) => a.name === 'blank')).toMatchObject({ status: 'error' });
    const env = await store.environments.getByName(ENV);
    const names = (await store.agents.list({ environmentId: env!.id })).map((a) => a.name);
    expect(names).toEqual(['AWS Cost Analyst']);
  });

  it('resolves sub-agents in the same environment and rejects unknown ones', async () => {
    writeAgent('child', 'metadata:\n  description: child');
    writeAgent('parent', 'agents: [child]');
    writeAgent('orphan', 'agents: [nobody]');
    const report = await sync();
    expect(report.agents.find((a) => a.name === 'orphan')!.error).toContain('nobody');
    const env = await store.environments.getByName(ENV);
    const parent = await store.agents.getByName(env!.id, 'parent');
    expect((await store.agents.listSubAgents(parent!.id)).map((a) => a.name)).toEqual(['child']);
  });

  it('keeps a broken template and its servers, and says why', async () => {
    writeTemplate('local', { calc: fixture('--tools', 'add') });
    await sync();
    const file = path.join(envDir(), 'local.json');
    writeFileSync(file, '{"mcpServers": {"calc": ');
    const report = await sync();
    expect(report.configs[0]!.status).toBe('error');
    expect(report.removedServers).toEqual([]);
    expect(existsSync(file)).toBe(true);
    expect(await toolNames('calc')).toEqual(['add']);
    const env = await store.environments.getByName(ENV);
    expect((await store.mcpConfigs.getByName(env!.id, 'local'))!.status).toBe('error');
  });

  it('--dry-run reports the changes and writes nothing', async () => {
    writeTemplate('local', { calc: fixture('--tools', 'add') });
    writeAgent('helper', 'tools: [add]');
    const report = await sync({ dryRun: true });
    expect(report.dryRun).toBe(true);
    expect(report.configs[0]!.change).toBe('added');
    expect(report.configs[0]!.servers[0]!.toolsAdded).toEqual(['add']);
    expect(report.agents[0]).toMatchObject({ name: 'helper', status: 'synced', change: 'added' });
    expect(await store.environments.list()).toEqual([]);
  });

  it('says how to create an environment that does not exist', async () => {
    await expect(sync({ environment: 'prod' })).rejects.toMatchObject({
      code: 'ENVIRONMENT_NOT_FOUND',
      message: expect.stringContaining('junction env create prod'),
    });
  });
});

describe('syncEnvironment schedules', () => {
  // 06:00 in Chicago (CST, UTC-6): "0 9 * * *" there fires next at 15:00 UTC the same day.
  const clock = (): Date => new Date('2025-03-01T12:00:00Z');

  async function scheduleOf(name: string): Promise<Schedule | undefined> {
    const env = await store.environments.getByName(ENV);
    const agent = await store.agents.getByName(env!.id, name);
    return agent ? store.schedules.getFor('agent', agent.id) : undefined;
  }

  it("stores a prompt file's schedule with its next time in its time zone", async () => {
    writeAgent(
      'reporter',
      'schedule:\n  cron: "0 9 * * *"\n  timezone: America/Chicago\n  task: Daily report\n' +
        '  variables:\n    region: eu\n  catch_up: skip\n  overlap: queue',
    );
    const report = await sync({ now: clock });
    expect(report.ok).toBe(true);
    expect(report.totals.schedules).toBe(1);
    expect(await scheduleOf('reporter')).toMatchObject({
      kind: 'agent',
      target: 'reporter',
      cron: '0 9 * * *',
      timezone: 'America/Chicago',
      enabled: true,
      task: 'Daily report',
      variables: { region: 'eu' },
      catchUp: 'skip',
      overlap: 'queue',
      origin: 'file',
      nextRunAt: new Date('2025-03-01T15:00:00Z'),
    });
  });

  it('moves the schedule when the cron changes, and stops a disabled one', async () => {
    writeAgent('reporter', 'schedule:\n  cron: "0 9 * * *"');
    await sync({ now: clock });
    const first = await scheduleOf('reporter');

    writeAgent('reporter', 'schedule:\n  cron: "30 18 * * *"\n  timezone: UTC');
    await sync({ now: clock });
    const second = await scheduleOf('reporter');
    expect(second).toMatchObject({ id: first!.id, cron: '30 18 * * *' });
    expect(second!.nextRunAt).toEqual(new Date('2025-03-01T18:30:00Z'));

    writeAgent('reporter', 'schedule:\n  cron: "30 18 * * *"\n  enabled: false');
    await sync({ now: clock });
    expect(await scheduleOf('reporter')).toMatchObject({ enabled: false, nextRunAt: null });
  });

  it('drops the file schedule when the schedule block goes away', async () => {
    writeAgent('reporter', 'schedule:\n  cron: "0 9 * * *"');
    writeAgent('other', 'schedule:\n  cron: "0 10 * * *"');
    await sync({ now: clock });
    writeAgent('reporter', 'metadata:\n  description: no longer scheduled');
    const report = await sync({ now: clock });
    expect(report.totals.schedules).toBe(1);
    expect(await scheduleOf('reporter')).toBeUndefined();
    expect(await scheduleOf('other')).toMatchObject({ cron: '0 10 * * *' });
  });

  it('leaves a schedule an operator set alone, with or without a schedule block', async () => {
    writeAgent('reporter', 'schedule:\n  cron: "0 9 * * *"');
    writeAgent('manual', 'metadata:\n  description: scheduled by hand');
    await sync({ now: clock });
    const env = await store.environments.getByName(ENV);
    for (const name of ['reporter', 'manual']) {
      const agent = await store.agents.getByName(env!.id, name);
      await store.schedules.set(
        { kind: 'agent', id: agent!.id, name, environmentId: env!.id },
        { cron: '*/5 * * * *', origin: 'operator', nextRunAt: new Date('2025-03-01T12:05:00Z') },
      );
    }

    writeAgent('reporter', 'schedule:\n  cron: "0 7 * * *"');
    await sync({ now: clock });
    for (const name of ['reporter', 'manual']) {
      expect(await scheduleOf(name)).toMatchObject({ cron: '*/5 * * * *', origin: 'operator' });
    }
  });

  it('fails an agent whose cron cannot fire, naming schedule.cron, and stores no schedule', async () => {
    writeAgent('broken', 'schedule:\n  cron: "0 0 31 2 *"');
    const report = await sync({ now: clock });
    expect(report.ok).toBe(false);
    const broken = report.agents.find((a) => a.name === 'broken')!;
    expect(broken.status).toBe('error');
    expect(broken.error).toContain('schedule.cron');
    expect(report.totals.schedules).toBe(0);
    expect(await store.schedules.list()).toEqual([]);
  });

  it('keeps the schedule of a stored agent whose prompt file breaks, until it is fixed', async () => {
    writeAgent('reporter', 'schedule:\n  cron: "0 9 * * *"');
    await sync({ now: clock });
    writeAgent('reporter', 'schedule:\n  cron: "0 9 * *"');
    const report = await sync({ now: clock });
    expect(report.agents[0]!.status).toBe('error');
    expect(await scheduleOf('reporter')).toMatchObject({ cron: '0 9 * * *', origin: 'file' });
  });

  it('--dry-run counts the schedules and writes none', async () => {
    writeAgent('reporter', 'schedule:\n  cron: "0 9 * * *"');
    const report = await sync({ now: clock, dryRun: true });
    expect(report.totals.schedules).toBe(1);
    expect(await store.schedules.list()).toEqual([]);
  });
});
