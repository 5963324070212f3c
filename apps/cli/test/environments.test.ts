import { beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, tempConfigHome } from './run-cli.js';

const fixtureServer = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../tooling/fixtures/mcp-server.mjs',
);

interface Workspace {
  env: NodeJS.ProcessEnv;
  dir: (envName?: string) => string;
}

/** An initialised workspace whose default environment uses the fixture server, not the npx example. */
function fixtureWorkspace(tools = 'add,echo,upper'): Workspace {
  const home = tempConfigHome();
  const env = { XDG_CONFIG_HOME: home };
  expect(runCli(['init'], env).status).toBe(0);
  const dir = (envName = 'default'): string => path.join(home, 'junction', 'environments', envName);
  writeFileSync(
    path.join(dir(), 'filesystem.json'),
    JSON.stringify({
      mcpServers: { calc: { command: process.execPath, args: [fixtureServer, '--tools', tools] } },
    }),
  );
  writeFileSync(
    path.join(dir(), 'agents', 'assistant.prompt'),
    '---\ntools: [add]\n---\n{{userInput}}\n',
  );
  return { env, dir };
}

describe('junction sync', () => {
  it('syncs the example environment made by init: real filesystem server, agent bound to its tools', () => {
    const home = tempConfigHome();
    const env = { XDG_CONFIG_HOME: home };
    expect(runCli(['init'], env).status).toBe(0);
    const sync = runCli(['sync', 'default'], env);
    expect(sync.stderr).toBe('');
    expect(sync.status).toBe(0);
    expect(sync.stdout).toMatch(/server\s+filesystem\/filesystem\s+connected\s+\d+ tools/);
    const show = runCli(['agent', 'show', 'assistant'], env);
    expect(show.status).toBe(0);
    expect(show.stdout).toContain('filesystem/list_directory');
    expect(show.stdout).toContain('filesystem/read_text_file');
    const list = JSON.parse(runCli(['env', 'list', '--json'], env).stdout) as Array<
      Record<string, unknown>
    >;
    expect(list[0]).toMatchObject({ name: 'default', agents: 1, mcp_configs: 1, mcp_servers: 1 });
    expect(list[0]!.tools).toBeGreaterThan(5);
    expect(list[0]!.last_synced_at).toEqual(expect.any(String));
  }, 120_000);

  it('prints a line per server as it goes and a summary table', () => {
    const ws = fixtureWorkspace();
    const r = runCli(['sync', 'default'], ws.env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/server\s+filesystem\/calc\s+connected\s+3 tools/);
    expect(r.stdout).toMatch(/^CONFIG\s+SERVER\s+STATUS\s+CHANGE\s+TOOLS\s+ADDED\s+REMOVED$/m);
    expect(r.stdout).toMatch(/^filesystem\s+calc\s+connected\s+added\s+3\s+add,echo,upper/m);
    expect(r.stdout).toContain(
      'Synced 1 configs, 1 servers (0 failed), 3 tools, 1 agents (0 failed)',
    );
  });

  // Regression (issue 13, item 15): a changed variable went unused until the next sync silently.
  it('says which variables changed since the last sync, names only', () => {
    const ws = fixtureWorkspace();
    writeFileSync(path.join(ws.dir(), 'variables.yml'), 'REGION: eu-west-1\n');
    expect(runCli(['sync', 'default'], ws.env).stdout).not.toContain('Variables changed');
    writeFileSync(path.join(ws.dir(), 'variables.yml'), 'REGION: us-east-2\n');
    const again = runCli(['sync', 'default'], ws.env);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('Variables changed since the last sync: REGION.');
    expect(again.stdout).not.toContain('us-east-2');
  });

  it('--json prints the report; --dry-run writes nothing', () => {
    const ws = fixtureWorkspace();
    const dry = runCli(['sync', 'default', '--dry-run', '--json'], ws.env);
    expect(dry.status).toBe(0);
    const report = JSON.parse(dry.stdout) as {
      dryRun: boolean;
      configs: Array<{ change: string }>;
    };
    expect(report.dryRun).toBe(true);
    expect(report.configs[0]!.change).toBe('added');
    const agents = JSON.parse(runCli(['agent', 'list', '--json'], ws.env).stdout) as unknown[];
    expect(agents).toEqual([]);
    const real = JSON.parse(runCli(['sync', 'default', '--json'], ws.env).stdout) as {
      ok: boolean;
    };
    expect(real.ok).toBe(true);
  });

  it('exits 7 when a server fails, and still syncs the rest', () => {
    const ws = fixtureWorkspace();
    writeFileSync(
      path.join(ws.dir(), 'broken.json'),
      JSON.stringify({
        mcpServers: {
          dies: { command: process.execPath, args: [fixtureServer, '--exit-at-start', '2'] },
        },
      }),
    );
    const r = runCli(['sync', 'default', '--timeout', '5'], ws.env);
    expect(r.status).toBe(7);
    expect(r.stdout).toMatch(/server\s+broken\/dies\s+error/);
    expect(r.stdout).toMatch(/server\s+filesystem\/calc\s+connected/);
    expect(r.stderr).toContain('failed');
  });

  it('exits 3 listing every missing variable and changes nothing', () => {
    const ws = fixtureWorkspace();
    writeFileSync(
      path.join(ws.dir(), 'needs.json'),
      JSON.stringify({
        mcpServers: { x: { command: 'x', args: ['{{ .ALPHA }}', '{{ .BETA }}'] } },
      }),
    );
    const r = runCli(['sync', 'default'], ws.env);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('ALPHA, BETA');
    expect(r.stderr).toContain('needs.json');
    const envs = JSON.parse(runCli(['env', 'list', '--json'], ws.env).stdout) as Array<
      Record<string, unknown>
    >;
    expect(envs[0]!.last_synced_at).toBeNull();
  });

  it('exits 4 for an environment that does not exist', () => {
    const ws = fixtureWorkspace();
    const r = runCli(['sync', 'nope'], ws.env);
    expect(r.status).toBe(4);
    expect(r.stderr).toContain('junction env create nope');
  });
});

describe('junction env create', () => {
  it('creates an environment and lists it', () => {
    const ws = fixtureWorkspace();
    const r = runCli(['env', 'create', 'prod'], ws.env);
    expect(r.status).toBe(0);
    expect(existsSync(path.join(ws.dir('prod'), 'variables.yml'))).toBe(true);
    const names = (
      JSON.parse(runCli(['env', 'list', '--json'], ws.env).stdout) as Array<{ name: string }>
    ).map((e) => e.name);
    expect(names).toEqual(['default', 'prod']);
  });

  it('refuses an existing environment (exit 5) and a bad name (exit 2)', () => {
    const ws = fixtureWorkspace();
    expect(runCli(['env', 'create', 'default'], ws.env).status).toBe(5);
    const bad = runCli(['env', 'create', '../escape'], ws.env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('INVALID_NAME');
  });
});

describe('junction agent', () => {
  let ws: Workspace;
  beforeAll(() => {
    ws = fixtureWorkspace();
    expect(runCli(['sync', 'default'], ws.env).status).toBe(0);
  });

  it('list and show give the synced agent with its tools', () => {
    const list = JSON.parse(runCli(['agent', 'list', '--json'], ws.env).stdout) as Array<
      Record<string, unknown>
    >;
    expect(list.map((a) => a.name)).toContain('assistant');
    const show = runCli(['agent', 'show', 'assistant', '--json'], ws.env);
    expect(show.status).toBe(0);
    const view = JSON.parse(show.stdout) as Record<string, unknown>;
    expect(view).toMatchObject({
      name: 'assistant',
      environment: 'default',
      max_steps: 25,
      tools: [{ name: 'add', server: 'calc', description: expect.any(String) }],
      sub_agents: [],
    });
    expect(view.prompt_path).toBe(path.join(ws.dir(), 'agents', 'assistant.prompt'));
  });

  it('show of an unknown agent exits 4 and suggests a sync', () => {
    const r = runCli(['agent', 'show', 'ghost'], ws.env);
    expect(r.status).toBe(4);
    expect(r.stderr).toContain('junction sync default');
  });

  it('create writes the prompt file and registers the agent with its tools', () => {
    const r = runCli(
      [
        'agent',
        'create',
        'calculator',
        'Adds things',
        '--tools',
        'add,__echo',
        '--max-steps',
        '4',
        '--model',
        'openai/gpt-4o-mini',
        '--prompt',
        'You add numbers.',
        '--json',
      ],
      ws.env,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const view = JSON.parse(r.stdout) as {
      tools: Array<{ name: string }>;
      max_steps: number;
      model: string;
    };
    expect(view.tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);
    expect(view.max_steps).toBe(4);
    const text = readFileSync(path.join(ws.dir(), 'agents', 'calculator.prompt'), 'utf8');
    expect(text).toContain('You add numbers.');
    expect(text).toContain('{{userInput}}');
  });

  it('create refuses to overwrite an existing agent (exit 5) and leaves its file alone', () => {
    const file = path.join(ws.dir(), 'agents', 'assistant.prompt');
    const before = readFileSync(file, 'utf8');
    const r = runCli(['agent', 'create', 'assistant', 'again'], ws.env);
    expect(r.status).toBe(5);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('create rejects names with path separators or dots (exit 2), writing nothing', () => {
    for (const name of ['../evil', 'a/b', '..', 'has space']) {
      const r = runCli(['agent', 'create', name, 'bad'], ws.env);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('INVALID_NAME');
    }
    expect(existsSync(path.join(ws.dir(), 'evil.prompt'))).toBe(false);
  });

  it('create with an unknown tool exits 4 and writes no file', () => {
    const r = runCli(['agent', 'create', 'ghosty', 'x', '--tools', 'add,teleport'], ws.env);
    expect(r.status).toBe(4);
    expect(r.stderr).toContain('teleport');
    expect(existsSync(path.join(ws.dir(), 'agents', 'ghosty.prompt'))).toBe(false);
  });

  it('copy puts an independent agent in another environment once its tools exist there', () => {
    expect(runCli(['env', 'create', 'staging'], ws.env).status).toBe(0);
    // No servers in staging yet: refused, nothing copied.
    const refused = runCli(
      ['agent', 'copy', 'assistant', '--from', 'default', '--to', 'staging'],
      ws.env,
    );
    expect(refused.status).toBe(4);
    expect(existsSync(path.join(ws.dir('staging'), 'agents', 'assistant.prompt'))).toBe(false);

    writeFileSync(
      path.join(ws.dir('staging'), 'tools.json'),
      JSON.stringify({
        mcpServers: {
          calc: { command: process.execPath, args: [fixtureServer, '--tools', 'add'] },
        },
      }),
    );
    expect(runCli(['sync', 'staging'], ws.env).status).toBe(0);
    const r = runCli(
      ['agent', 'copy', 'assistant', '--from', 'default', '--to', 'staging', '--json'],
      ws.env,
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'assistant', environment: 'staging' });
    // Independent: editing the copy does not touch the original.
    const copy = path.join(ws.dir('staging'), 'agents', 'assistant.prompt');
    writeFileSync(copy, '---\nmax_steps: 3\ntools: [add]\n---\n{{userInput}}\n');
    expect(runCli(['sync', 'staging'], ws.env).status).toBe(0);
    const staging = JSON.parse(
      runCli(['agent', 'show', 'assistant', '--env', 'staging', '--json'], ws.env).stdout,
    ) as { max_steps: number };
    const original = JSON.parse(
      runCli(['agent', 'show', 'assistant', '--json'], ws.env).stdout,
    ) as { max_steps: number };
    expect(staging.max_steps).toBe(3);
    expect(original.max_steps).toBe(25);
    // Copying again is refused.
    expect(
      runCli(['agent', 'copy', 'assistant', '--from', 'default', '--to', 'staging'], ws.env).status,
    ).toBe(5);
  });
});
