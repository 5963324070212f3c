// The coding tools in direct HTTP mode: an opencode server's API (the fake in
// tooling/fixtures/coding), with the workspace on this machine under
// coding.workspace_base_path — cloned, committed and pushed by Junction, removed on close.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startFakeOpencodeServer,
  type FakeOpencodeServer,
} from '@junction/tooling/fixtures/coding/fake-opencode-server.mjs';
import { SpanKind } from '@junction/telemetry';
import { SPAN_CODING_TASK } from '../src/coding-tools.js';
import { createCodingTools, type CodingSettings } from '../src/index.js';
import { HttpCodingBackend } from '../src/http-backend.js';
import {
  codingTracing,
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

const TOKEN = 'ghp_directModeTokenNeverInRecords9012';

let world: World;
let origin: string;
let server: FakeOpencodeServer;

function settingsFor(url: string, over: Partial<CodingSettings> = {}): CodingSettings {
  return testSettings(world.dir, {
    backend: 'opencode',
    opencodeUrl: url,
    token: TOKEN,
    taskTimeoutMs: 5_000,
    maxAttempts: 2,
    ...over,
  });
}

function toolsFor(settings: CodingSettings, kept = keptLogger()) {
  const backend = new HttpCodingBackend({ settings, logger: kept.logger });
  const provider = createCodingTools({
    settings,
    store: world.store,
    logger: kept.logger,
    backend: async () => backend,
  });
  const { ctx, events } = runContext(world, { enabled: true, backend: 'opencode' } as never);
  return { provider, ctx, events, kept };
}

beforeAll(async () => {
  world = await makeWorld('junction-coding-http-');
  origin = makeOrigin(world.dir);
  server = await startFakeOpencodeServer({ port: 0 });
});
afterAll(async () => {
  await server?.stop();
  await world?.store.close();
  rmSync(world.dir, { recursive: true, force: true });
});

describe('coding tools over direct HTTP', () => {
  it('clones into its own workspace, codes, commits, pushes and removes the workspace on close', async () => {
    const { provider, ctx, events, kept } = toolsFor(settingsFor(server.url));
    const t = await provider.tools(ctx);
    const opened = await call(t, 'coding_open', { repo_url: origin, title: 'direct' });
    expect(opened.isError).toBe(false);
    const id = opened.json.session_id as string;
    const workspace = opened.json.workspace_path as string;
    expect(workspace).toBe(path.join(world.dir, 'workspaces', `junction-${id}`));
    expect(existsSync(path.join(workspace, 'README.md'))).toBe(true);

    const coded = await call(t, 'code', {
      session_id: id,
      instruction: 'WRITE greet.txt: hi there',
      context: 'the team likes greetings',
      files: ['greet.txt'],
    });
    expect(coded.isError).toBe(false);
    expect(coded.json.files_changed).toEqual(['greet.txt']);
    // The coding task is a CLIENT span of its own, with its outcome (issue 19).
    const task = codingTracing.memoryExporter
      ?.getFinishedSpans()
      .find((span) => span.name === SPAN_CODING_TASK);
    expect(task?.kind).toBe(SpanKind.CLIENT);
    expect(task?.attributes).toMatchObject({
      'coding.session_id': id,
      'coding.backend': 'opencode',
      'coding.status': 'completed',
      'coding.files_changed': 1,
    });
    const message = server.requests.find((r) => r.method === 'POST' && /\/message$/.test(r.path));
    expect(message?.query.directory).toBe(workspace);
    expect(JSON.stringify(message?.body)).toContain('Focus on these files: greet.txt');

    const committed = await call(t, 'coding_commit', { session_id: id, message: 'greet' });
    expect(committed.isError).toBe(false);
    expect(committed.json.commit_hash).toBe(gitOut(workspace, 'rev-parse', 'HEAD'));
    const again = await call(t, 'coding_commit', { session_id: id, message: 'again' });
    expect(again).toMatchObject({ isError: false });
    expect(again.json.nothing_to_commit).toBe(true);

    const pushed = await call(t, 'coding_push', { session_id: id, branch: 'main' });
    expect(pushed.isError).toBe(false);
    expect(gitOut(origin, 'log', '-1', '--format=%s', 'main')).toBe('greet');

    const closed = await call(t, 'coding_close', { session_id: id });
    expect(closed.isError).toBe(false);
    expect(existsSync(workspace)).toBe(false);
    expect(server.requests.some((r) => r.method === 'DELETE')).toBe(true);

    const types = events.map((e) => e.payload.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'workspace_created',
        'git_clone',
        'session_created',
        'prompt_sent',
        'tool_start',
        'tool_end',
        'text',
        'git_commit',
        'git_push',
        'session_closed',
      ]),
    );
    expect(JSON.stringify(events) + kept.text()).not.toContain(TOKEN);
  }, 180_000);

  it('keeps a folder the agent named, and says so when it is no git repository', async () => {
    const { provider, ctx } = toolsFor(settingsFor(server.url));
    const t = await provider.tools(ctx);
    const own = path.join(world.dir, 'own-folder');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(own);
    const opened = await call(t, 'coding_open', { workspace_path: own });
    const id = opened.json.session_id as string;
    expect(
      (await call(t, 'code', { session_id: id, instruction: 'WRITE notes.md: n' })).isError,
    ).toBe(false);
    const committed = await call(t, 'coding_commit', { session_id: id, message: 'x' });
    expect(committed.isError).toBe(true);
    expect(committed.text).toContain('is not a git repository');
    await call(t, 'coding_close', { session_id: id });
    expect(existsSync(path.join(own, 'notes.md'))).toBe(true);
    expect((await call(t, 'coding_open', { workspace_path: 'relative/path' })).text).toContain(
      'absolute folder path',
    );
  });

  it('answers a timeout after coding.max_attempts sends to a server that does not answer', async () => {
    const { provider, ctx, events } = toolsFor(
      settingsFor(server.url, { taskTimeoutMs: 600, maxAttempts: 2 }),
    );
    const t = await provider.tools(ctx);
    const id = (await call(t, 'coding_open', {})).json.session_id as string;
    const coded = await call(t, 'code', { session_id: id, instruction: 'IGNORE' });
    expect(coded.isError).toBe(true);
    expect(coded.json.status).toBe('timeout');
    expect(String(coded.json.error)).toContain('after 2 attempts');
    expect(events.some((e) => e.payload.type === 'task_resent')).toBe(true);
    await call(t, 'coding_close', { session_id: id });
  }, 180_000);

  it('answers with the reason when the coding server is down, and the assistant failure as a tool error', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const { provider, ctx } = toolsFor(settingsFor(down));
    const t = await provider.tools(ctx);
    const opened = await call(t, 'coding_open', {});
    expect(opened.isError).toBe(true);
    expect(opened.text).toContain(`The coding server at ${down} is not reachable`);
    expect(opened.text).toContain('coding.opencode.url');

    const up = toolsFor(settingsFor(server.url));
    const t2 = await up.provider.tools(up.ctx);
    const id = (await call(t2, 'coding_open', {})).json.session_id as string;
    const failed = await call(t2, 'code', {
      session_id: id,
      instruction: 'FAIL the model is out of credits',
    });
    expect(failed.isError).toBe(true);
    expect(failed.json.error).toBe('the model is out of credits');
    await call(t2, 'coding_close', { session_id: id });
  });
});
