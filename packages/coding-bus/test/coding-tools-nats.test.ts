// The coding tools over the bus, end to end on real parts: Junction's own embedded nats-server,
// the fake backend speaking the opencode plugin's protocol (tooling/fixtures/coding), a real
// store file and a git origin the session clones and pushes to.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kvm } from '@nats-io/kv';
import {
  startFakeCodingBackend,
  type FakeCodingBackend,
} from '@junction/tooling/fixtures/coding/fake-coding-backend.mjs';
import { createCodingTools, type CodingSettings } from '../src/index.js';
import { NatsCodingBackend, SESSIONS_BUCKET } from '../src/nats-backend.js';
import {
  call,
  freePort,
  gitOut,
  keptLogger,
  makeOrigin,
  makeWorld,
  runContext,
  type World,
  testSettings,
} from './harness.js';

const TOKEN = 'ghp_codingTokenThatMustNeverBeRecorded1234';

function settingsFor(
  port: number,
  dir: string,
  over: Partial<CodingSettings> = {},
): CodingSettings {
  return testSettings(dir, { port, token: TOKEN, ...over });
}

describe('coding tools over the embedded bus', () => {
  let world: World;
  let origin: string;
  let port: number;
  let backend: NatsCodingBackend;
  let fake: FakeCodingBackend;
  const kept = keptLogger();

  beforeAll(async () => {
    world = await makeWorld('junction-coding-nats-');
    origin = makeOrigin(world.dir);
    port = await freePort();
    backend = new NatsCodingBackend({
      settings: settingsFor(port, world.dir),
      logger: kept.logger,
      storeDir: path.join(world.dir, 'nats'),
    });
    const bus = await backend.start();
    expect(bus.ok).toBe(true);
    fake = await startFakeCodingBackend({
      natsUrl: `nats://127.0.0.1:${port}`,
      workspaceDir: path.join(world.dir, 'backend-workspaces'),
    });
  }, 180_000);

  afterAll(async () => {
    await fake?.stop();
    await backend?.stop();
    await world?.store.close();
    rmSync(world.dir, { recursive: true, force: true });
  });

  const tools = async (over: Partial<CodingSettings> = {}, using: NatsCodingBackend = backend) => {
    const provider = createCodingTools({
      settings: settingsFor(port, world.dir, over),
      store: world.store,
      logger: kept.logger,
      backend: async () => using,
    });
    const { ctx, events } = runContext(world, { enabled: true } as never);
    return { tools: await provider.tools(ctx), events };
  };

  it('opens a session on a repository, codes, commits, pushes and closes; the origin has the commit', async () => {
    const { tools: t, events } = await tools();
    expect(t.map((x) => x.name)).toEqual([
      'coding_open',
      'code',
      'coding_commit',
      'coding_push',
      'coding_close',
    ]);

    const opened = await call(t, 'coding_open', {
      repo_url: origin,
      branch: 'main',
      title: 'demo',
    });
    expect(opened.isError).toBe(false);
    const id = opened.json.session_id as string;
    expect(id).toMatch(/^cs-[0-9a-f]{12}$/);
    expect(opened.json.branch).toBe('main');
    expect((await world.store.codingSessions.get(id))?.status).toBe('open');

    const coded = await call(t, 'code', {
      session_id: id,
      instruction: 'WRITE hello.txt: hello from the agent',
    });
    expect(coded.isError).toBe(false);
    expect(coded.json.success).toBe(true);
    expect(coded.json.files_changed).toEqual(['hello.txt']);
    expect(coded.json.summary).toContain('Wrote hello.txt');
    expect(coded.json.tokens_used).toBeGreaterThan(0);

    const committed = await call(t, 'coding_commit', { session_id: id, message: 'add hello' });
    expect(committed.isError).toBe(false);
    expect(committed.json.commit_hash).toMatch(/^[0-9a-f]{40}$/);

    const pushed = await call(t, 'coding_push', { session_id: id });
    expect(pushed.isError).toBe(false);
    expect(gitOut(origin, 'log', '-1', '--format=%s %H', 'main')).toBe(
      `add hello ${committed.json.commit_hash as string}`,
    );

    // The plugin's session state is in its bucket while the session is open …
    const bus = await backend.start();
    if (!bus.ok) throw bus.error;
    const kv = await new Kvm(bus.connection).open(SESSIONS_BUCKET);
    expect((await kv.get(id))?.operation).toBe('PUT');

    const closed = await call(t, 'coding_close', { session_id: id });
    expect(closed.isError).toBe(false);
    expect((await world.store.codingSessions.get(id))?.status).toBe('closed');
    // … and cleared on close.
    expect((await kv.get(id))?.operation ?? 'DEL').not.toBe('PUT');

    // The state machine: a closed session takes no more work, and closes once.
    const after = await call(t, 'code', { session_id: id, instruction: 'WRITE x.txt: x' });
    expect(after).toMatchObject({ isError: true });
    expect(after.text).toContain(`Coding session ${id} is closed`);
    expect((await call(t, 'coding_close', { session_id: id })).text).toContain('already closed');
    expect(
      (await call(t, 'code', { session_id: 'cs-000000000000', instruction: 'x' })).text,
    ).toContain('No coding session cs-000000000000');

    // The stream reached the run as coding_event rows, in order, for each task.
    const types = events.filter((e) => e.type === 'coding_event').map((e) => e.payload.type);
    expect(types).toEqual(
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
    const write = events.find((e) => e.payload.type === 'tool_start' && e.payload.tool === 'write');
    expect(write?.payload.session_id).toBe(id);

    // The token went to the backend in the task's own field, and nowhere else.
    expect(fake.tasks[0]?.hasToken).toBe(true);
    const recorded =
      JSON.stringify(events) +
      JSON.stringify(opened) +
      JSON.stringify(coded) +
      kept.text() +
      JSON.stringify(await world.store.codingSessions.list({}));
    expect(recorded).not.toContain(TOKEN);
  }, 180_000);

  it('says so when a session has no git repository to commit to', async () => {
    const { tools: t } = await tools();
    const opened = await call(t, 'coding_open', { workspace_path: 'scratch/notes' });
    expect(opened.isError).toBe(false);
    const id = opened.json.session_id as string;
    expect(opened.json.workspace_path).toContain('scratch/notes');
    const committed = await call(t, 'coding_commit', { session_id: id, message: 'nothing' });
    expect(committed.isError).toBe(true);
    expect(committed.text).toContain('is not a git repository');
    await call(t, 'coding_close', { session_id: id });
  }, 180_000);

  it('refuses arguments that are not what they should be, before anything is sent', async () => {
    const { tools: t } = await tools();
    const before = fake.tasks.length;
    expect((await call(t, 'coding_open', { workspace_path: '../escape' })).text).toContain(
      'relative folder name',
    );
    expect((await call(t, 'coding_open', { branch: '--upload-pack=evil' })).text).toContain(
      'is not a branch name',
    );
    expect((await call(t, 'code', { session_id: 'cs-1' })).text).toContain(
      'instruction is required',
    );
    expect((await call(t, 'coding_push', { session_id: 'cs-1', remote: 'a b' })).text).toContain(
      'remote must be',
    );
    expect(fake.tasks.length).toBe(before);
  });

  it('answers timeout after coding.max_attempts sends to a backend that never answers', async () => {
    // A second client of the same bus (it listens already: connected to, not started again).
    const impatient = new NatsCodingBackend({
      settings: settingsFor(port, world.dir, { taskTimeoutMs: 700, maxAttempts: 2 }),
      logger: kept.logger,
      storeDir: path.join(world.dir, 'nats-unused'),
    });
    const bus = await impatient.start();
    expect(bus.ok && bus.embedded).toBeUndefined();
    const { tools: t, events } = await tools({}, impatient);
    const opened = await call(t, 'coding_open', {});
    const id = opened.json.session_id as string;
    const started = Date.now();
    const coded = await call(t, 'code', { session_id: id, instruction: 'IGNORE' });
    expect(coded.isError).toBe(true);
    expect(coded.json.status).toBe('timeout');
    expect(coded.json.attempts).toBe(2);
    expect(String(coded.json.error)).toContain('after 2 sends');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(events.some((e) => e.payload.type === 'task_resent' && e.payload.attempt === 2)).toBe(
      true,
    );
    await call(t, 'coding_close', { session_id: id });
    await impatient.stop();
  }, 180_000);
});
