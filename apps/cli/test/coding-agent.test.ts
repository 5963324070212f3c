// An agent that writes code, end to end on real parts: `junction serve` starts its own
// nats-server (coding.backend opencode-nats), the fake coding backend speaking the opencode
// plugin's protocol joins the bus, and `junction agent run` — a fake model calling the coding
// tools — opens a session on a local repository, asks for a change, commits, pushes and
// closes. The repository has the commit, the run's events hold the stream, the token is in no
// record, and the bus stops with serve.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import {
  startFakeCodingBackend,
  type FakeCodingBackend,
} from '@junction/tooling/fixtures/coding/fake-coding-backend.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { freePort, startServe, type ServeProcess } from './serve-process.js';

const TOKEN = 'ghp_endToEndTokenThatNoRecordMayHold4242';
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 't@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 't@example.invalid',
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

const CODER = [
  '---',
  'description: Changes code through the coding assistant',
  'max_steps: 8',
  'coding:',
  '  enabled: true',
  '---',
  '{{role "system"}}',
  'You change code with the coding tools.',
  '{{role "user"}}',
  '{{userInput}}',
  '',
].join('\n');

let model: FakeOpenAI;
let backend: FakeCodingBackend | undefined;
let serve: ServeProcess | undefined;
let env: NodeJS.ProcessEnv;
let dir: string;
let origin: string;
let natsPort: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-coding-e2e-'));
  origin = path.join(dir, 'origin.git');
  const seed = path.join(dir, 'seed');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin], { env: GIT_ENV });
  execFileSync('git', ['init', '-q', '-b', 'main', seed], { env: GIT_ENV });
  writeFileSync(path.join(seed, 'README.md'), '# demo\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'first');
  git(seed, 'push', '-q', origin, 'main');

  natsPort = await freePort();
  model = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: model.url,
    env: { OPENAI_API_KEY: 'sk-coding-e2e-0123456789', JUNCTION_TEST_GIT_TOKEN: TOKEN },
    config: [
      'coding:',
      '  backend: opencode-nats',
      '  nats:',
      `    url: nats://127.0.0.1:${natsPort}`,
      '  task_timeout_min: 0.5',
      '  max_attempts: 2',
      '  git:',
      '    token_env_var: JUNCTION_TEST_GIT_TOKEN',
      '',
    ].join('\n'),
  });
  writeFileSync(
    path.join(
      env.XDG_CONFIG_HOME!,
      'junction',
      'environments',
      'default',
      'agents',
      'coder.prompt',
    ),
    CODER,
  );
  const synced = await runCliAsync(['sync', 'default'], env);
  expect(synced.status).toBe(0);
}, 180_000);

afterAll(async () => {
  await backend?.stop();
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an agent with coding tools', () => {
  it('opens a session on a repository, has a change made, commits, pushes and closes', async () => {
    serve = await startServe(env);
    await serve.ready;
    const started = /embedded nats-server started .*?pid=(\d+)/.exec(serve.stderr());
    expect(started).not.toBeNull();
    const natsPid = Number(started![1]);
    expect(serve.stderr()).toContain('coding backend ready');

    backend = await startFakeCodingBackend({
      natsUrl: `nats://127.0.0.1:${natsPort}`,
      workspaceDir: path.join(dir, 'backend-workspaces'),
    });
    const session = '{{tool:session_id}}';
    model.script([
      {
        toolCalls: [
          { name: 'coding_open', arguments: { repo_url: origin, branch: 'main', title: 'hello' } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'code',
            arguments: { session_id: session, instruction: 'WRITE hello.txt: hello from Junction' },
          },
        ],
      },
      {
        toolCalls: [
          { name: 'coding_commit', arguments: { session_id: session, message: 'add hello' } },
        ],
      },
      { toolCalls: [{ name: 'coding_push', arguments: { session_id: session } }] },
      { toolCalls: [{ name: 'coding_close', arguments: { session_id: session } }] },
      { text: 'Added hello.txt and pushed it.' },
    ]);
    const run = await runCliAsync(['agent', 'run', 'coder', 'Add a hello file'], env);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.status).toBe(0);
    // The stream, live at the terminal.
    expect(run.stdout).toMatch(/coding\s+cs-[0-9a-f]{12}\s+git_clone/);
    expect(run.stdout).toMatch(/coding\s+cs-[0-9a-f]{12}\s+tool_start\s+write/);
    expect(run.stdout).toMatch(/tool coding\/code\s+ok/);
    expect(run.stdout).toContain('Added hello.txt and pushed it.');

    // The repository has the commit.
    expect(git(origin, 'log', '-1', '--format=%s', 'main')).toBe('add hello');
    expect(git(origin, 'show', 'main:hello.txt')).toBe('hello from Junction');

    // The run's events hold the stream and each tool call.
    const runId = /run (\d+) completed/.exec(run.stdout)![1]!;
    const inspected = await runCliAsync(['runs', 'inspect', runId, '--json', '--verbose'], env);
    const view = JSON.parse(inspected.stdout) as {
      events: Array<{ type: string; payload?: Record<string, unknown> }>;
    };
    const coding = view.events.filter((e) => e.type === 'coding_event').map((e) => e.payload?.type);
    expect(coding).toEqual(
      expect.arrayContaining([
        'workspace_created',
        'git_clone',
        'session_created',
        'prompt_sent',
        'tool_start',
        'tool_end',
        'text',
        'session_closed',
      ]),
    );
    const tools = view.events.filter((e) => e.type === 'tool_call').map((e) => e.payload?.tool);
    expect(tools).toEqual(['coding_open', 'code', 'coding_commit', 'coding_push', 'coding_close']);

    // The token travelled to the backend in the task, and is in no record or output.
    expect(backend.tasks[0]?.hasToken).toBe(true);
    for (const text of [inspected.stdout, run.stdout, run.stderr, serve.stdout(), serve.stderr()])
      expect(text).not.toContain(TOKEN);

    // The bus is serve's: it stops with it.
    serve.child.kill('SIGTERM');
    expect(await serve.exit).toBe(0);
    expect(() => process.kill(natsPid, 0)).toThrow();
  }, 120_000);
});
