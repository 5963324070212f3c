import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { syncEnvironment } from '@junction/agent-core/sync';
import type { Environment } from '@junction/store';
import {
  call,
  connectInMemory,
  createHarness,
  fixtureServerPath,
  textOf,
  type Harness,
} from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;
let staging: Environment;

beforeAll(async () => {
  h = await createHarness({
    agents: {
      calc: 'model: openai/gpt-test\ntools: [add]',
      chat: 'model: openai/gpt-test',
    },
  });
  // A second environment with an agent of the same name, and no tool servers.
  await h.workspace.createEnvironment('staging');
  writeFileSync(
    path.join(h.workspace.environmentDir('staging'), 'agents', 'chat.prompt'),
    '---\nmodel: openai/gpt-test\n---\n{{role "system"}}\nStaging.\n{{role "user"}}\n{{userInput}}\n',
  );
  await syncEnvironment({
    workspace: h.workspace,
    store: h.store,
    pool: h.pool,
    environment: 'staging',
    processEnv: {},
  });
  staging = (await h.store.environments.getByName('staging')) as Environment;
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});

describe('list_environments', () => {
  it('lists every environment with its id and counts, and names folders never synced', async () => {
    await h.workspace.createEnvironment('fresh');
    const result = await call(client, 'list_environments');
    expect(result.structuredContent).toEqual({
      environments: [
        expect.objectContaining({
          id: h.env.id,
          name: 'default',
          agents: 2,
          mcp_configs: 1,
          servers: 1,
          tools: 4,
          on_disk: true,
          last_synced_at: expect.any(String),
        }),
        expect.objectContaining({ id: staging.id, name: 'staging', agents: 1, tools: 0 }),
      ],
      unsynced_environments: ['fresh'],
    });
  });
});

describe('list_mcp_configs', () => {
  it('lists configs with their servers, status and tool counts, without env or headers', async () => {
    const result = await call(client, 'list_mcp_configs', { environment_id: String(h.env.id) });
    const configs = result.structuredContent?.configs as Array<Record<string, unknown>>;
    expect(configs).toEqual([
      expect.objectContaining({
        name: 'tools',
        environment: 'default',
        status: 'synced',
        last_error: null,
        servers: [
          {
            id: expect.any(Number),
            name: 'calc',
            transport: 'stdio',
            command: process.execPath,
            status: 'connected',
            last_error: null,
            tools: 4,
          },
        ],
      }),
    ]);
  });

  it('lists nothing for an environment without configs, and refuses an unknown id', async () => {
    const empty = await call(client, 'list_mcp_configs', { environment_id: staging.id });
    expect(empty.structuredContent).toEqual({ configs: [] });
    const unknown = await call(client, 'list_mcp_configs', { environment_id: '999' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('No environment has id 999');
  });
});

describe('list_tools', () => {
  it('lists the tools of an environment with their server', async () => {
    const result = await call(client, 'list_tools', { environment_id: String(h.env.id) });
    const tools = result.structuredContent?.tools as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).toEqual(['add', 'echo', 'fail', 'slow']);
    expect(tools[0]).toMatchObject({ server: 'calc', environment_id: h.env.id });
    expect(result.structuredContent).toMatchObject({ total: 4, limit: 50, offset: 0 });
  });

  // Regression (issue 13, item 1): search "\u0000" matched every tool.
  it('refuses a search with a control character instead of matching everything', async () => {
    for (const search of ['\u0000', 'ec\nho']) {
      const result = await call(client, 'list_tools', { search });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('search must not contain control characters');
    }
  });

  it('searches names and descriptions case-insensitively, and pages', async () => {
    const found = await call(client, 'list_tools', { search: 'ECH' });
    expect((found.structuredContent?.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([
      'echo',
    ]);
    const page = await call(client, 'list_tools', { limit: 2, offset: 2 });
    expect((page.structuredContent?.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([
      'fail',
      'slow',
    ]);
    expect(page.structuredContent?.total).toBe(4);
  });

  it('refuses an offset that is not a whole number', async () => {
    const result = await call(client, 'list_tools', { offset: 'ten' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('offset must be a whole number');
  });
});

describe('discover_tools', () => {
  const envDir = (): string => h.workspace.environmentDir('default');

  it('re-syncs the environment and reports every server with its outcome and tool count', async () => {
    writeFileSync(
      path.join(envDir(), 'broken.json'),
      JSON.stringify({
        mcpServers: {
          dead: { command: process.execPath, args: [fixtureServerPath, '--exit-at-start', '3'] },
        },
      }),
    );
    try {
      const result = await call(client, 'discover_tools', { environment_id: String(h.env.id) });
      expect(result.isError).toBeFalsy();
      const data = result.structuredContent as Record<string, unknown>;
      expect(data).toMatchObject({
        environment: 'default',
        environment_id: h.env.id,
        ok: false,
        scope: 'environment',
        totals: { servers: 2, failed_servers: 1, tools: 4 },
      });
      const configs = data.configs as Array<{
        name: string;
        servers: Array<Record<string, unknown>>;
      }>;
      const servers = configs.flatMap((c) => c.servers);
      expect(servers.find((s) => s.name === 'calc')).toMatchObject({
        status: 'connected',
        tools: 4,
        error: null,
      });
      const dead = servers.find((s) => s.name === 'dead');
      expect(dead).toMatchObject({ status: 'error', tools: 0 });
      expect(String(dead?.error)).toMatch(/exit/i);
      expect(textOf(result)).toMatch(
        /^Synced environment "default": 2 server\(s\), 4 tool\(s\), 1 server\(s\) failed/,
      );
    } finally {
      rmSync(path.join(envDir(), 'broken.json'));
    }
  });

  it('takes a config_id and says the whole environment was synced', async () => {
    const config = await h.store.mcpConfigs.getByName(h.env.id, 'tools');
    const result = await call(client, 'discover_tools', { config_id: String(config?.id) });
    expect(result.structuredContent).toMatchObject({
      environment: 'default',
      ok: true,
      requested_config: { config_id: config?.id, name: 'tools', removed: false },
      note: expect.stringContaining('whole environment'),
    });
  });

  it('says so when the named config lost its file and the sync removed it', async () => {
    writeFileSync(path.join(envDir(), 'gone.json'), JSON.stringify({ mcpServers: {} }));
    await h.sync();
    const gone = await h.store.mcpConfigs.getByName(h.env.id, 'gone');
    rmSync(path.join(envDir(), 'gone.json'));
    const result = await call(client, 'discover_tools', { config_id: String(gone?.id) });
    expect(result.structuredContent).toMatchObject({
      requested_config: { config_id: gone?.id, name: 'gone', removed: true },
      removed_configs: ['gone'],
      note: expect.stringContaining('the sync removed it'),
    });
    expect(await h.store.mcpConfigs.get(gone?.id as number)).toBeUndefined();
  });

  it('refuses a call without config_id or environment_id, and unknown ids', async () => {
    const none = await call(client, 'discover_tools', {});
    expect(none.isError).toBe(true);
    expect(textOf(none)).toContain('Give environment_id');
    const unknownConfig = await call(client, 'discover_tools', { config_id: '5050' });
    expect(textOf(unknownConfig)).toBe(
      'No MCP config has id 5050. Call list_mcp_configs for valid config ids. (CONFIG_NOT_FOUND)',
    );
    const unknownEnv = await call(client, 'discover_tools', { environment_id: '5050' });
    expect(unknownEnv.structuredContent).toMatchObject({
      error: { code: 'ENVIRONMENT_NOT_FOUND' },
    });
  });

  it('answers a template with a missing variable as a tool error that names it', async () => {
    writeFileSync(
      path.join(envDir(), 'needs-var.json'),
      '{"mcpServers": {"x": {"url": "http://127.0.0.1:1/{{ .MISSING_THING }}"}}}',
    );
    try {
      const result = await call(client, 'discover_tools', { environment_id: h.env.id });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        error: { code: 'TEMPLATE_VARIABLE_MISSING' },
      });
      expect(textOf(result)).toContain('MISSING_THING');
    } finally {
      rmSync(path.join(envDir(), 'needs-var.json'));
    }
  });
});

describe('call_agent across environments', () => {
  it("runs the default environment's agent for a name several environments use (the one rule of the run door)", async () => {
    h.fake.reset();
    h.fake.script([{ text: 'from default' }]);
    const result = await call(client, 'call_agent', { agent_name: 'chat', task: 'x' });
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      final_response: 'from default',
    });
    const run = await h.store.runs.get(result.structuredContent?.run_id as number);
    expect(run?.environmentId).toBe(h.env.id);
  });

  it('runs the agent of the environment given by environment_id', async () => {
    h.fake.reset();
    h.fake.script([{ text: 'from staging' }]);
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      environment_id: String(staging.id),
      task: 'x',
    });
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      final_response: 'from staging',
    });
    const run = await h.store.runs.get(result.structuredContent?.run_id as number);
    expect(run?.environmentId).toBe(staging.id);
  });
});

describe('list_runs and inspect_run', () => {
  it('lists runs newest first, filtered by agent and by status (failed = error)', async () => {
    h.fake.reset();
    h.fake.script([{ text: 'one' }, { error: { status: 400, message: 'nope' } }]);
    const calc = await h.get('calc');
    const ok = await call(client, 'call_agent', { agent_id: String(calc.id), task: 'first' });
    const bad = await call(client, 'call_agent', { agent_id: String(calc.id), task: 'second' });
    const okId = ok.structuredContent?.run_id;
    const badId = bad.structuredContent?.run_id;

    const all = await call(client, 'list_runs', { agent_id: String(calc.id) });
    const runs = all.structuredContent?.runs as Array<Record<string, unknown>>;
    expect(runs.map((r) => r.run_id)).toEqual([badId, okId]);
    expect(runs[1]).toMatchObject({ status: 'completed', source: 'mcp', task: 'first' });
    // A list line: the run's view without its long or rarely listed fields.
    expect(Object.keys(runs[1] ?? {}).sort()).toEqual(
      [
        'run_id',
        'agent_id',
        'agent_name',
        'environment_id',
        'status',
        'source',
        'task',
        'steps_taken',
        'input_tokens',
        'output_tokens',
        'error',
        'queued_at',
        'started_at',
        'completed_at',
        'duration_ms',
      ].sort(),
    );

    const failed = await call(client, 'list_runs', { agent_id: calc.id, status: 'failed' });
    expect(
      (failed.structuredContent?.runs as Array<Record<string, unknown>>).map((r) => r.run_id),
    ).toEqual([badId]);
    const limited = await call(client, 'list_runs', { limit: 1 });
    expect(limited.structuredContent?.runs as unknown[]).toHaveLength(1);
  });

  it('cuts long tasks in the list, and shows them whole in inspect_run', async () => {
    const calc = await h.get('calc');
    const task = `${'x'.repeat(250)} end`;
    const run = await h.store.runs.create({
      agentId: calc.id,
      agentName: calc.name,
      task,
      source: 'api',
    });
    const listed = await call(client, 'list_runs', { agent_id: calc.id, limit: 1 });
    const [line] = listed.structuredContent?.runs as Array<Record<string, unknown>>;
    expect(line).toMatchObject({ run_id: run.id, task: `${'x'.repeat(200)}…` });
    const detail = await call(client, 'inspect_run', { run_id: String(run.id) });
    expect(detail.structuredContent).toMatchObject({ run_id: run.id, task });
  });

  it('refuses an unknown status and an unknown agent', async () => {
    const status = await call(client, 'list_runs', { status: 'exploded' });
    expect(status.isError).toBe(true);
    expect(textOf(status)).toContain(
      'status must be one of queued, running, completed, error, timeout, cancelled, failed',
    );
    const agent = await call(client, 'list_runs', { agent_id: '8888' });
    expect(textOf(agent)).toContain('No agent has id 8888');
  });

  it('shows a run with its events; payloads only when verbose', async () => {
    const [run] = await h.store.runs.list({ status: 'completed', limit: 1 });
    const plain = await call(client, 'inspect_run', { run_id: String(run?.id) });
    const detail = plain.structuredContent as Record<string, unknown>;
    expect(detail).toMatchObject({ run_id: run?.id, status: 'completed', event_count: 1 });
    // The fields docs/mcp.md lists: the cost is the CLI's, REST's and the dashboard's.
    expect(detail).not.toHaveProperty('cost_usd');
    const events = detail.events as Array<Record<string, unknown>>;
    expect(events[0]).toMatchObject({ seq: 1, type: 'model_turn' });
    expect(events[0]).not.toHaveProperty('payload');
    const verbose = await call(client, 'inspect_run', { run_id: run?.id, verbose: true });
    expect((verbose.structuredContent?.events as Array<Record<string, unknown>>)[0]).toHaveProperty(
      'payload',
    );
  });

  it('refuses an unknown run and a missing run_id', async () => {
    const unknown = await call(client, 'inspect_run', { run_id: '123456' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(
      'No run has id 123456. Call list_runs for valid run ids. (RUN_NOT_FOUND)',
    );
    const missing = await call(client, 'inspect_run', {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('at run_id');
  });
});
