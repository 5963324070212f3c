// The two fake coding backends against real peers: fake-coding-backend.mjs on a real
// nats-server (JetStream on, started here on a free loopback port), and fake-opencode-server.mjs
// over real HTTP. Workspaces, git repositories and the server's store live in temp folders.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { startFakeCodingBackend } from '../fixtures/coding/fake-coding-backend.mjs';
import type {
  CodingResult,
  CodingStreamEvent,
  CodingTask,
  FakeCodingBackend,
  SessionState,
} from '../fixtures/coding/fake-coding-backend.mjs';
import { startFakeOpencodeServer } from '../fixtures/coding/fake-opencode-server.mjs';
import type {
  FakeOpencodeMessage,
  FakeOpencodeServer,
  FakeOpencodeSession,
} from '../fixtures/coding/fake-opencode-server.mjs';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/coding');
const backendScript = path.join(fixtures, 'fake-coding-backend.mjs');
const opencodeScript = path.join(fixtures, 'fake-opencode-server.mjs');

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects after `ms` with a message saying what was awaited. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function findNatsServer(): string {
  const candidates = [
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
  ].map((dir) => path.join(dir, 'nats-server'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  throw new Error(
    'nats-server was not found on PATH or in /usr/sbin: install the Debian package nats-server ' +
      '(apt-get install nats-server) to run these tests.',
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A nats-server process with JetStream, on a loopback port, storing under `storeDir`. */
interface NatsServer {
  process: ChildProcess;
  port: number;
  url: string;
}

function startNatsServer(binary: string, port: number, storeDir: string): Promise<NatsServer> {
  const child = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const ready = new Promise<NatsServer>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('Server is ready')) {
        resolve({ process: child, port, url: `nats://127.0.0.1:${port}` });
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}):\n${stderr}`)));
  });
  return within(ready, 10_000, 'nats-server to be ready').catch((error: unknown) => {
    stopProcess(child);
    throw error;
  });
}

/** Kills a process we started, by its PID, and waits (bounded) for it to be gone. */
async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, signal);
  try {
    await within(exited, 5_000, `process ${child.pid} to exit`);
  } catch {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
    await within(exited, 5_000, `process ${child.pid} to exit after SIGKILL`);
  }
}

/** Resolves with the first stdout line of a process we started. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before printing:\n${err}`)));
  });
}

/** A task as published, with the callbacks filled in and the answers collected. */
interface Submitted {
  task: CodingTask;
  events: CodingStreamEvent[];
  results: CodingResult[];
  /** The result, or a rejection after `ms`. */
  result(ms?: number): Promise<CodingResult>;
}

async function submit(
  nc: NatsConnection,
  task: Omit<CodingTask, 'taskID' | 'callback'> & { taskID?: string },
  subject = 'svc.coding.task',
): Promise<Submitted> {
  const taskID = task.taskID ?? `task-${randomUUID()}`;
  const full: CodingTask = {
    ...task,
    taskID,
    callback: { streamSubject: `test.stream.${taskID}`, resultSubject: `test.result.${taskID}` },
  };
  const events: CodingStreamEvent[] = [];
  const results: CodingResult[] = [];
  let resolveResult: (result: CodingResult) => void = () => {};
  const first = new Promise<CodingResult>((resolve) => (resolveResult = resolve));
  nc.subscribe(full.callback.streamSubject, {
    callback: (_error, msg) => {
      events.push(msg.json<CodingStreamEvent>());
    },
  });
  nc.subscribe(full.callback.resultSubject, {
    callback: (_error, msg) => {
      const result = msg.json<CodingResult>();
      results.push(result);
      resolveResult(result);
    },
  });
  await nc.flush();
  nc.publish(subject, JSON.stringify(full));
  return {
    task: full,
    events,
    results,
    result: (ms = 5_000) => within(first, ms, `the result of ${taskID}`),
  };
}

/** Resolves when `events` holds an event of `type` (polling; bounded). */
async function eventOf(
  events: CodingStreamEvent[],
  type: CodingStreamEvent['type'],
  ms = 5_000,
): Promise<CodingStreamEvent> {
  const deadline = Date.now() + ms;
  for (;;) {
    const event = events.find((e) => e.type === type);
    if (event) return event;
    if (Date.now() > deadline) throw new Error(`no ${type} event within ${ms} ms`);
    await sleep(20);
  }
}

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** A local repository with one commit on `main`, to clone from. */
function originRepo(): { url: string; firstCommit: string } {
  const dir = path.join(tempDir('fake-coding-origin-'), 'origin');
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env: GIT_ENV });
  execFileSync('git', ['-C', dir, 'commit', '-q', '--allow-empty', '-m', 'initial'], {
    env: GIT_ENV,
  });
  return { url: dir, firstCommit: git(dir, 'rev-parse', 'HEAD') };
}

let natsBinary: string;
let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  natsBinary = findNatsServer();
  nats = await startNatsServer(natsBinary, await freePort(), tempDir('fake-coding-js-'));
  nc = await connect({ servers: nats.url });
}, 20_000);

afterAll(async () => {
  await nc?.close().catch(() => {});
  if (nats) await stopProcess(nats.process);
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
}, 20_000);

describe('fake-coding-backend.mjs on a real nats-server', () => {
  let backend: FakeCodingBackend;
  let workspaces: string;
  const origin = { url: '', firstCommit: '' };

  beforeAll(async () => {
    Object.assign(origin, originRepo());
    workspaces = tempDir('fake-coding-ws-');
    backend = await startFakeCodingBackend({ natsUrl: nats.url, workspaceDir: workspaces });
  });

  afterAll(async () => {
    await backend?.stop();
  });

  const prompt = [
    'Add a hello file and commit it.',
    '1. WRITE hello.txt: hello\\nworld',
    'Run: git add -A',
    '3. git commit -m "add hello"',
  ].join('\n');

  it('clones, writes, commits, streams numbered events and answers with the new HEAD', async () => {
    const task = await submit(nc, {
      session: { name: 'repo-main' },
      workspace: { name: 'repo', git: { url: origin.url, branch: 'main' } },
      prompt,
    });
    const result = await task.result();

    expect(task.events.map((e) => e.seq)).toEqual(task.events.map((_, i) => i + 1));
    expect(task.events.map((e) => e.type)).toEqual([
      'workspace_created',
      'git_clone',
      'session_created',
      'prompt_sent',
      'tool_start',
      'tool_end',
      'tool_start',
      'tool_end',
      'tool_start',
      'tool_end',
      'text',
    ]);
    const wsPath = path.join(workspaces, 'repo');
    expect(task.events[1]?.git).toEqual({
      url: origin.url,
      branch: 'main',
      commit: origin.firstCommit,
    });
    expect(task.events[3]?.content).toBe(prompt);
    expect(task.events[4]?.tool).toEqual({
      name: 'write',
      callID: 'call_1',
      args: { filePath: 'hello.txt', content: 'hello\nworld' },
    });
    expect(task.events[8]?.tool).toMatchObject({
      name: 'bash',
      args: { command: 'git commit -m "add hello"' },
    });
    expect(readFileSync(path.join(wsPath, 'hello.txt'), 'utf8')).toBe('hello\nworld');

    const head = git(wsPath, 'rev-parse', 'HEAD');
    expect(head).not.toBe(origin.firstCommit);
    expect(git(wsPath, 'log', '-1', '--format=%s')).toBe('add hello');
    expect(result).toMatchObject({
      taskID: task.task.taskID,
      status: 'completed',
      session: { name: 'repo-main', messageCount: 1 },
      workspace: {
        name: 'repo',
        path: wsPath,
        git: { branch: 'main', commit: head, dirty: false },
      },
      metrics: { toolCalls: 3, streamEvents: 11, promptTokens: prompt.trim().split(/\s+/).length },
    });
    expect(result.session.opencodeID).toMatch(/^ses_/);
    expect(result.result).toContain(
      `Ran git commit -m "add hello" → [main ${head.slice(0, 7)}] add hello`,
    );
    expect(result.result?.split('\n')).toContain('changed: hello.txt');
    expect(task.events.at(-1)?.content).toBe(result.result);

    const kv = await new Kvm(nc).open('opencode-sessions');
    const state = (await kv.get('repo-main'))?.json<SessionState>();
    expect(state).toMatchObject({
      sessionName: 'repo-main',
      opencodeID: result.session.opencodeID,
      workspaceName: 'repo',
      workspacePath: wsPath,
      messageCount: 1,
      git: { url: origin.url, branch: 'main', lastCommit: head },
    });
  });

  it('reuses the session and the workspace on a second task, pulling first', async () => {
    const task = await submit(nc, {
      session: { name: 'repo-main' },
      workspace: { name: 'repo', git: { url: origin.url, branch: 'main' } },
      prompt: 'git commit -m "nothing here"',
    });
    const result = await task.result();
    expect(task.events.map((e) => e.type)).toEqual([
      'workspace_reused',
      'git_pull',
      'session_reused',
      'prompt_sent',
      'tool_start',
      'tool_end',
      'text',
    ]);
    expect(result.status).toBe('completed');
    // "nothing to commit" is an answer, not an error.
    expect(result.result).toContain('nothing to commit');
    expect(result.session.messageCount).toBe(2);
    const kv = await new Kvm(nc).open('opencode-sessions');
    const state = (await kv.get('repo-main'))?.json<SessionState>();
    expect(state?.messageCount).toBe(2);
    expect(task.events[2]?.session).toEqual({
      name: 'repo-main',
      opencodeID: result.session.opencodeID,
    });
  });

  it('answers FAIL with an error event and an error result', async () => {
    const task = await submit(nc, {
      session: { name: 'failing' },
      workspace: { name: 'plain' },
      prompt: 'WRITE a.txt: first\nFAIL broken on purpose\nWRITE b.txt: never',
    });
    const result = await task.result();
    expect(result).toMatchObject({
      status: 'error',
      error: 'broken on purpose',
      errorType: 'TaskFailed',
      workspace: { name: 'plain', path: path.join(workspaces, 'plain') },
    });
    expect(result.workspace.git).toBeUndefined();
    expect(task.events.at(-1)).toMatchObject({ type: 'error', content: 'broken on purpose' });
    expect(task.events.map((e) => e.type)).not.toContain('text');
    expect(existsSync(path.join(workspaces, 'plain', 'b.txt'))).toBe(false);
  });

  it("answers a failing git command with git's stderr", async () => {
    const task = await submit(nc, {
      session: { name: 'bad-git' },
      workspace: { name: 'repo', git: { url: origin.url, pull: false } },
      prompt: 'git checkout no-such-branch',
    });
    const result = await task.result();
    expect(result.status).toBe('error');
    expect(result.errorType).toBe('GitError');
    expect(result.error).toContain('no-such-branch');
    expect(task.events.map((e) => e.type)).not.toContain('git_pull');
  });

  it('refuses workspace names and paths that leave the workspace folder', async () => {
    const outside = await submit(nc, {
      session: { name: 'escape' },
      workspace: { name: '../escape' },
      prompt: 'WRITE x.txt: x',
    });
    expect(await outside.result()).toMatchObject({ status: 'error', errorType: 'WorkspaceError' });
    const escapingFile = await submit(nc, {
      session: { name: 'escape' },
      workspace: { name: 'inside' },
      prompt: 'WRITE ../../x.txt: x',
    });
    expect(await escapingFile.result()).toMatchObject({ status: 'error', errorType: 'PathError' });
  });

  it('records a task with a token as hasToken, never the token itself', async () => {
    const token = `tok-${randomUUID()}`;
    const task = await submit(nc, {
      session: { name: 'with-token' },
      workspace: { name: 'token-repo', git: { url: origin.url, token } },
      prompt: 'WRITE t.txt: t',
    });
    const result = await task.result();
    expect(result.status).toBe('completed');
    const recorded = backend.tasks.find((t) => t.taskID === task.task.taskID);
    expect(recorded?.hasToken).toBe(true);
    expect(recorded?.workspace.git?.token).toBe('<token>');
    expect(JSON.stringify(backend.tasks)).not.toContain(token);
    expect(JSON.stringify([task.events, result])).not.toContain(token);
    expect(backend.tasks.find((t) => t.session.name === 'repo-main')?.hasToken).toBe(false);
  });

  it('never answers an IGNORE task', async () => {
    const task = await submit(nc, {
      session: { name: 'ignored' },
      workspace: { name: 'ignored' },
      prompt: 'IGNORE',
    });
    await expect(task.result(600)).rejects.toThrow('timed out');
    expect(task.events).toEqual([]);
    expect(backend.tasks.map((t) => t.taskID)).toContain(task.task.taskID);
  });
});

describe('fake-coding-backend.mjs as a process', () => {
  const started: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of started) await stopProcess(child);
  }, 15_000);

  function spawnBackend(subject: string): ChildProcess {
    const child = spawn(
      process.execPath,
      [
        backendScript,
        '--nats',
        nats.url,
        '--subject',
        subject,
        '--workspaces',
        tempDir('fake-coding-proc-'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.push(child);
    return child;
  }

  it('says it is ready, handles a task and exits cleanly on SIGTERM', async () => {
    const child = spawnBackend('proc.one.task');
    expect(await within(firstLine(child), 5_000, 'the ready line')).toBe(
      'fake coding backend ready',
    );
    const task = await submit(
      nc,
      { session: { name: 'proc' }, workspace: { name: 'w' }, prompt: 'WRITE a.txt: a' },
      'proc.one.task',
    );
    expect((await task.result()).status).toBe('completed');
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    process.kill(child.pid as number, 'SIGTERM');
    expect(await within(exited, 5_000, 'the backend to exit')).toBe(0);
  });

  it('vanishes with exit code 3 on EXIT, after the events so far and without a result', async () => {
    const child = spawnBackend('proc.two.task');
    await within(firstLine(child), 5_000, 'the ready line');
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const task = await submit(
      nc,
      {
        session: { name: 'proc-exit' },
        workspace: { name: 'w' },
        prompt: 'WRITE a.txt: a\nEXIT\nWRITE b.txt: b',
      },
      'proc.two.task',
    );
    expect(await within(exited, 5_000, 'the backend to exit')).toBe(3);
    await nc.flush();
    expect(task.events.map((e) => e.type)).toEqual([
      'workspace_created',
      'session_created',
      'prompt_sent',
      'tool_start',
      'tool_end',
    ]);
    expect(task.results).toEqual([]);
  });
});

describe('fake-coding-backend.mjs losing the bus', () => {
  it('abandons the task in progress when the connection drops, and handles new tasks after reconnecting', async () => {
    const port = await freePort();
    const store = tempDir('fake-coding-js2-');
    let server = await startNatsServer(natsBinary, port, store);
    const lines: string[] = [];
    const workspaces = tempDir('fake-coding-ws2-');
    const backend = await startFakeCodingBackend({
      natsUrl: server.url,
      workspaceDir: workspaces,
      log: (line) => lines.push(line),
    });
    const client = await connect({
      servers: server.url,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    const waitForLine = async (text: string): Promise<void> => {
      const deadline = Date.now() + 5_000;
      while (!lines.some((line) => line.includes(text))) {
        if (Date.now() > deadline)
          throw new Error(`no log line with "${text}" in:\n${lines.join('\n')}`);
        await sleep(20);
      }
    };
    try {
      const publishedAt = Date.now();
      const slow = await submit(client, {
        session: { name: 'slow' },
        workspace: { name: 'slow' },
        prompt: 'SLEEP 1500\nWRITE late.txt: too late',
      });
      await eventOf(slow.events, 'prompt_sent');

      const clientBack = (async () => {
        for await (const status of client.status()) if (status.type === 'reconnect') return;
      })();
      await stopProcess(server.process, 'SIGKILL');
      await waitForLine('abandoned (connection lost)');
      server = await startNatsServer(natsBinary, port, store);
      await waitForLine('reconnected');
      await within(clientBack, 5_000, 'the test client to reconnect');
      await client.flush();

      const next = await submit(client, {
        session: { name: 'slow' },
        workspace: { name: 'slow' },
        prompt: 'WRITE after.txt: after',
      });
      expect(await next.result()).toMatchObject({ status: 'completed' });
      // The session was stored in JetStream before the crash, and the store survived it.
      expect(next.events.map((e) => e.type)).toContain('session_reused');

      // Past the end of the abandoned SLEEP: still nothing for it, and it wrote nothing.
      await sleep(Math.max(0, publishedAt + 2_000 - Date.now()));
      await client.flush();
      expect(slow.results).toEqual([]);
      expect(slow.events.map((e) => e.type)).not.toContain('tool_start');
      expect(existsSync(path.join(workspaces, 'slow', 'late.txt'))).toBe(false);
      expect(existsSync(path.join(workspaces, 'slow', 'after.txt'))).toBe(true);
    } finally {
      await backend.stop();
      await client.close().catch(() => {});
      await stopProcess(server.process);
    }
  }, 25_000);
});

describe('fake-opencode-server.mjs over HTTP', () => {
  let fake: FakeOpencodeServer;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeOpencodeServer();
    dir = tempDir('fake-opencode-');
  });
  afterAll(async () => {
    await fake?.stop();
  });

  const post = (url: string, body: unknown): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  async function createSession(): Promise<FakeOpencodeSession> {
    const res = await post(`${fake.url}/session?directory=${encodeURIComponent(dir)}`, {
      title: 'coding',
    });
    expect(res.status).toBe(200);
    return (await res.json()) as FakeOpencodeSession;
  }

  it('is healthy', async () => {
    const res = await fetch(`${fake.url}/global/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ healthy: true, version: '0.0.0-fake' });
  });

  it('creates a session in an existing directory and finds it again', async () => {
    const session = await createSession();
    expect(session).toMatchObject({ title: 'coding', directory: dir });
    expect(session.id).toMatch(/^ses_/);
    const res = await fetch(`${fake.url}/session/${session.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(session);

    const missing = await post(
      `${fake.url}/session?directory=${encodeURIComponent(path.join(dir, 'nope'))}`,
      {},
    );
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ name: 'BadRequest' });
  });

  it('carries out a message in the session directory and answers with tool and text parts', async () => {
    const session = await createSession();
    const res = await post(
      `${fake.url}/session/${session.id}/message?directory=${encodeURIComponent(dir)}`,
      {
        parts: [{ type: 'text', text: 'Please write it.\nWRITE notes/a.txt: one\\ntwo' }],
        model: { providerID: 'x', modelID: 'y' },
      },
    );
    expect(res.status).toBe(200);
    const message = (await res.json()) as FakeOpencodeMessage;
    expect(readFileSync(path.join(dir, 'notes/a.txt'), 'utf8')).toBe('one\ntwo');
    expect(message.info).toMatchObject({
      sessionID: session.id,
      role: 'assistant',
      modelID: 'fake',
      providerID: 'fake',
      finish: 'stop',
      tokens: { input: 6, reasoning: 0, cache: { read: 0, write: 0 } },
      cost: 0,
    });
    expect(message.info.id).toMatch(/^msg_/);
    expect(message.parts).toMatchObject([
      {
        type: 'tool',
        tool: 'write',
        callID: 'call_1',
        state: { status: 'completed', input: { filePath: 'notes/a.txt', content: 'one\ntwo' } },
      },
      { type: 'text', text: 'Wrote notes/a.txt.\nchanged: notes/a.txt' },
    ]);
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: `/session/${session.id}/message`,
      query: { directory: dir },
    });
  });

  it('answers FAIL with info.error and no text part', async () => {
    const session = await createSession();
    const res = await post(`${fake.url}/session/${session.id}/message`, {
      parts: [{ type: 'text', text: 'FAIL no can do' }],
    });
    expect(res.status).toBe(200);
    const message = (await res.json()) as FakeOpencodeMessage;
    expect(message.info.error).toEqual({ name: 'UnknownError', data: { message: 'no can do' } });
    expect(message.parts).toEqual([]);
  });

  it('answers 404 for an unknown session, 400 for bad JSON, and deletes sessions', async () => {
    const unknown = await fetch(`${fake.url}/session/ses_nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      name: 'NotFoundError',
      data: { message: 'Session not found: ses_nope' },
    });
    const unknownMessage = await post(`${fake.url}/session/ses_nope/message`, { parts: [] });
    expect(unknownMessage.status).toBe(404);

    const session = await createSession();
    expect((await post(`${fake.url}/session/${session.id}/message`, '{not json')).status).toBe(400);
    const deleted = await fetch(`${fake.url}/session/${session.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toBe(true);
    expect((await fetch(`${fake.url}/session/${session.id}`)).status).toBe(404);
    expect((await fetch(`${fake.url}/nowhere`)).status).toBe(404);
  });

  it('runs as a process and says where it listens', async () => {
    const child = spawn(process.execPath, [opencodeScript, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await within(firstLine(child), 5_000, 'the listening line');
      const match = /^fake opencode server listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      expect(match).not.toBeNull();
      const res = await fetch(`${match?.[1]}/global/health`);
      expect(await res.json()).toEqual({ healthy: true, version: '0.0.0-fake' });
    } finally {
      await stopProcess(child);
    }
  });
});
