import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { LogFields, Logger } from '@junction/telemetry';
import { AgentCoreError } from '../src/errors.js';
import { McpClientPool } from '../src/mcp/mcp-client-pool.js';
import type { McpServerSpec } from '../src/mcp/mcp-client-pool.js';
import { fixtureServerPath, startHttpFixture } from './fixture-server.js';
import type { HttpFixture } from './fixture-server.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const require = createRequire(import.meta.url);
const filesystemServer = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const everythingServer = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const ENV_SECRET = 'sk-secret-123456';
const HEADER_SECRET = 'hdr-secret-987654';

let tmp: string;
let pidFileCount = 0;
let pool: McpClientPool;
const fixtures: HttpFixture[] = [];

interface LogRecord {
  level: string;
  msg: string;
  fields: LogFields;
}
const logs: LogRecord[] = [];

function captureLogger(base: LogFields = {}): Logger {
  const write =
    (level: string) =>
    (msg: string, fields?: LogFields): void => {
      logs.push({ level, msg, fields: { ...base, ...fields } });
    };
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    child: (fields) => captureLogger({ ...base, ...fields }),
  };
}

function newPool(
  options: { connectTimeoutMs?: number; requestTimeoutMs?: number } = {},
): McpClientPool {
  pool = new McpClientPool({
    logger: captureLogger(),
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
  });
  return pool;
}

/** A fresh file the fixture appends its pid to, one line per process started. */
function pidFile(): string {
  pidFileCount += 1;
  return path.join(tmp, `pids-${pidFileCount}.txt`);
}

function pidsIn(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}

function stdioFixture(args: string[] = [], extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return {
    name: 'fixture',
    transport: 'stdio',
    command: process.execPath,
    args: [fixtureServerPath, ...args],
    ...extra,
  };
}

function httpSpec(url: string, headers?: Record<string, string>): McpServerSpec {
  return { name: 'remote', transport: 'http', url, ...(headers !== undefined ? { headers } : {}) };
}

async function http(args: string[] = []): Promise<HttpFixture> {
  const fixture = await startHttpFixture(args);
  fixtures.push(fixture);
  return fixture;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

async function waitUntil(what: string, check: () => boolean): Promise<boolean> {
  return eventually(what, check);
}

/** The AgentCoreError `start()` rejects with, and how long it took from the call. */
async function failure(
  start: () => Promise<unknown>,
): Promise<{ error: AgentCoreError; ms: number }> {
  const started = Date.now();
  try {
    await start();
  } catch (error) {
    if (!(error instanceof AgentCoreError)) throw error;
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected a rejection');
}

function textOf(result: { content: Array<Record<string, unknown>> }): string {
  return result.content.map((item) => (item.type === 'text' ? String(item.text) : '')).join('');
}

/** Everything about an error a surface could print: message, details, cause. */
function printable(error: AgentCoreError): string {
  const cause =
    error.cause instanceof Error
      ? `${error.cause.name}: ${error.cause.message}`
      : String(error.cause);
  return `${error.message}\n${JSON.stringify(error.toJSON())}\n${cause}`;
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'junction-mcp-pool-'));
});

afterEach(async () => {
  await pool?.closeAll();
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('McpClientPool over stdio', () => {
  it('lists the fixture tools with descriptions and JSON schemas', async () => {
    const tools = await newPool().listTools('env/fixture', stdioFixture());
    expect(tools.map((tool) => tool.name)).toEqual([
      'add',
      'echo',
      'upper',
      'fail',
      'slow',
      'env_value',
      'whoami',
    ]);
    const add = tools.find((tool) => tool.name === 'add');
    expect(add?.description).toBe('Adds two numbers and returns their sum.');
    expect(add?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(pool.activeKeys()).toEqual(['env/fixture']);
  });

  it('follows pagination cursors until the last page', async () => {
    const tools = await newPool().listTools('paged', stdioFixture(['--page-size', '2']));
    expect(tools.map((tool) => tool.name)).toEqual([
      'add',
      'echo',
      'upper',
      'fail',
      'slow',
      'env_value',
      'whoami',
    ]);
  });

  it('calls tools and returns their content and structured content unchanged', async () => {
    newPool();
    const spec = stdioFixture(['--name', 'calc-1']);
    const sum = await pool.callTool('k', spec, 'add', { a: 2, b: 40 });
    expect(sum).toEqual({
      content: [{ type: 'text', text: '42' }],
      structuredContent: { sum: 42 },
      isError: false,
    });
    const tricky = 'He said "hi"\nthen \'bye\'\ttab, ünïcödé ✓ 日本語 🚀 \\ back';
    expect(textOf(await pool.callTool('k', spec, 'echo', { text: tricky }))).toBe(tricky);
    expect(textOf(await pool.callTool('k', spec, 'upper', { text: 'straße' }))).toBe('STRASSE');
    expect(textOf(await pool.callTool('k', spec, 'whoami', {}))).toBe('calc-1');
  });

  it('returns a tool that throws as isError without raising', async () => {
    const result = await newPool().callTool('k', stdioFixture(), 'fail', {
      message: 'no such invoice',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('no such invoice');
  });

  it('passes env from the spec to the server, over the safe default environment only', async () => {
    process.env.JUNCTION_TEST_PARENT_ONLY = 'parent';
    try {
      newPool();
      const spec = stdioFixture([], { env: { GREETING: 'grüß dich', API_TOKEN: ENV_SECRET } });
      expect(textOf(await pool.callTool('k', spec, 'env_value', { name: 'GREETING' }))).toBe(
        'grüß dich',
      );
      expect(textOf(await pool.callTool('k', spec, 'env_value', { name: 'API_TOKEN' }))).toBe(
        ENV_SECRET,
      );
      expect(
        textOf(await pool.callTool('k', spec, 'env_value', { name: 'JUNCTION_TEST_PARENT_ONLY' })),
      ).toBe('(unset)');
      expect(textOf(await pool.callTool('k', spec, 'env_value', { name: 'PATH' }))).not.toBe(
        '(unset)',
      );
    } finally {
      delete process.env.JUNCTION_TEST_PARENT_ONLY;
    }
  });

  it('shares one connection attempt between concurrent first uses and reuses it after', async () => {
    newPool();
    const pids = pidFile();
    const spec = stdioFixture(['--pid-file', pids]);
    const [tools, sum, echo] = await Promise.all([
      pool.listTools('k', spec),
      pool.callTool('k', spec, 'add', { a: 1, b: 2 }),
      pool.callTool('k', spec, 'echo', { text: 'x' }),
    ]);
    expect(tools).toHaveLength(7);
    expect(sum.structuredContent).toEqual({ sum: 3 });
    expect(textOf(echo)).toBe('x');
    await pool.callTool('k', spec, 'echo', { text: 'again' });
    expect(pidsIn(pids)).toHaveLength(1);
  });

  it('reports a server that exits at start with its exit code and stderr, without waiting for the timeout', async () => {
    const { error, ms } = await failure(() =>
      newPool().listTools('k', stdioFixture(['--exit-at-start', '3'])),
    );
    expect(error.code).toBe('MCP_CONNECT_FAILED');
    expect(error.message).toBe(
      'MCP server "fixture" exited with code 3 during connect: fixture: exiting at start',
    );
    expect(error.details).toMatchObject({
      server: 'fixture',
      key: 'k',
      exitCode: 3,
      phase: 'connect',
    });
    expect(ms).toBeLessThan(10_000);
    expect(pool.activeKeys()).toEqual([]);
  });

  it('quotes the error line of a server that crashes with a stack trace, not the Node.js banner', async () => {
    const spec: McpServerSpec = {
      name: 'broken',
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', 'throw new Error("config file missing")'],
    };
    const { error } = await failure(() => newPool().listTools('k', spec));
    expect(error.message).toBe(
      'MCP server "broken" exited with code 1 during connect: Error: config file missing',
    );
    expect(error.details.stderr).toContain('Node.js v');
  });

  it('says when the command does not exist', async () => {
    const spec: McpServerSpec = {
      name: 'ghost',
      transport: 'stdio',
      command: 'junction-no-such-command-xyz',
    };
    const { error } = await failure(() => newPool().listTools('k', spec));
    expect(error.code).toBe('MCP_CONNECT_FAILED');
    expect(error.message).toContain(
      'command "junction-no-such-command-xyz" was not found (ENOENT)',
    );
  });

  it('times out a hanging server after connectTimeoutMs and kills its child', async () => {
    newPool({ connectTimeoutMs: 1_000 });
    const pids = pidFile();
    const { error, ms } = await failure(() =>
      pool.listTools('k', stdioFixture(['--hang', '--pid-file', pids])),
    );
    expect(error.code).toBe('MCP_TIMEOUT');
    expect(error.message).toContain('did not finish connecting within 1000 ms');
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(10_000);
    const [pid] = pidsIn(pids);
    expect(pid).toBeDefined();
    // The pool tears the child down by itself, before any closeAll.
    expect(await waitUntil('the child to exit', () => !isAlive(pid as number))).toBe(true);
    expect(pool.activeKeys()).toEqual([]);
  });

  it('fails the call in flight when the server crashes, then restarts it on next use', async () => {
    newPool();
    const pids = pidFile();
    const spec = stdioFixture(['--crash-after', '2', '--pid-file', pids]);
    await pool.callTool('k', spec, 'add', { a: 1, b: 1 });
    await pool.callTool('k', spec, 'add', { a: 1, b: 2 });
    const { error, ms } = await failure(() => pool.callTool('k', spec, 'add', { a: 1, b: 3 }));
    expect(error.code).toBe('MCP_SERVER_EXITED');
    expect(error.message).toBe(
      'MCP server "fixture" exited with code 1 while calling tool "add": fixture: crashing after 2 tool calls. It is started again on next use.',
    );
    expect(ms).toBeLessThan(10_000);
    expect(pool.activeKeys()).toEqual([]);
    const again = await pool.callTool('k', spec, 'add', { a: 2, b: 3 });
    expect(again.structuredContent).toEqual({ sum: 5 });
    const [first, second] = pidsIn(pids);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(isAlive(first as number)).toBe(false);
  });

  it('times out a slow call but keeps a server that still answers', async () => {
    newPool();
    const pids = pidFile();
    const spec = stdioFixture(['--pid-file', pids]);
    await pool.listTools('k', spec);
    const { error, ms } = await failure(() =>
      pool.callTool('k', spec, 'slow', { ms: 60_000 }, { timeoutMs: 300 }),
    );
    expect(error.code).toBe('MCP_TIMEOUT');
    expect(error.message).toBe(
      'MCP server "fixture" did not finish calling tool "slow" within 300 ms',
    );
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(10_000);
    expect(textOf(await pool.callTool('k', spec, 'echo', { text: 'still here' }))).toBe(
      'still here',
    );
    expect(pidsIn(pids)).toHaveLength(1);
  });

  it('stops waiting when the caller aborts', async () => {
    newPool();
    const spec = stdioFixture();
    await pool.listTools('k', spec);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { error, ms } = await failure(() =>
      pool.callTool('k', spec, 'slow', { ms: 60_000 }, { signal: controller.signal }),
    );
    expect(error.code).toBe('MCP_REQUEST_FAILED');
    expect(error.message).toBe('Calling tool "slow" on MCP server "fixture" was cancelled');
    expect(error.details).toMatchObject({ cancelled: true });
    expect(ms).toBeLessThan(10_000);
  });

  it('never puts env values in errors, even when the server prints them', async () => {
    const spec: McpServerSpec = {
      name: 'leaky',
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', 'console.error("rejected key " + process.env.API_KEY); process.exit(4)'],
      env: { API_KEY: ENV_SECRET },
    };
    const { error } = await failure(() => newPool().listTools('k', spec));
    expect(error.code).toBe('MCP_CONNECT_FAILED');
    expect(error.message).toBe(
      'MCP server "leaky" exited with code 4 during connect: rejected key [REDACTED]',
    );
    expect(printable(error)).not.toContain(ENV_SECRET);
  });

  it('connects anew when the spec of a key changes, so a removed tool disappears', async () => {
    newPool();
    const pids = pidFile();
    const before = await pool.listTools(
      'k',
      stdioFixture(['--tools', 'add,echo,upper', '--pid-file', pids]),
    );
    expect(before.map((tool) => tool.name)).toEqual(['add', 'echo', 'upper']);
    const after = await pool.listTools(
      'k',
      stdioFixture(['--tools', 'add,echo', '--pid-file', pids]),
    );
    expect(after.map((tool) => tool.name)).toEqual(['add', 'echo']);
    const [old] = pidsIn(pids);
    expect(await waitUntil('the old child to exit', () => !isAlive(old as number))).toBe(true);
  });

  it('lets a call in flight finish on the old connection when the spec of its key changes', async () => {
    newPool();
    const pids = pidFile();
    const oldSpec = stdioFixture(['--pid-file', pids]);
    await pool.listTools('k', oldSpec);
    const running = pool.callTool('k', oldSpec, 'slow', { ms: 600 });
    const tools = await pool.listTools('k', stdioFixture(['--tools', 'echo', '--pid-file', pids]));
    expect(tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(textOf(await running)).toBe('waited 600 ms');
    const [old, current] = pidsIn(pids);
    expect(await waitUntil('the old child to exit', () => !isAlive(old as number))).toBe(true);
    expect(isAlive(current as number)).toBe(true);
  });

  it('close(key) stops the child and the next use starts a new one', async () => {
    newPool();
    const pids = pidFile();
    const spec = stdioFixture(['--pid-file', pids]);
    await pool.listTools('k', spec);
    await pool.close('k');
    expect(pool.activeKeys()).toEqual([]);
    expect(isAlive(pidsIn(pids)[0] as number)).toBe(false);
    await pool.listTools('k', spec);
    expect(pidsIn(pids)).toHaveLength(2);
  });

  it('closeAll leaves no child process behind and refuses later calls', async () => {
    newPool({ connectTimeoutMs: 60_000 });
    const pids = pidFile();
    await Promise.all(
      ['a', 'b', 'c'].map((key) => pool.listTools(key, stdioFixture(['--pid-file', pids]))),
    );
    // One more key still connecting to a server that never answers.
    const hanging = pool.listTools('hung', stdioFixture(['--hang', '--pid-file', pids]));
    hanging.catch(() => undefined);
    await waitUntil('four children', () => pidsIn(pids).length === 4);
    expect(pool.activeKeys()).toEqual(['a', 'b', 'c']);
    const started = Date.now();
    await pool.closeAll();
    expect(Date.now() - started).toBeLessThan(30_000);
    for (const pid of pidsIn(pids)) expect(isAlive(pid)).toBe(false);
    expect((await failure(() => hanging)).error.code).toBe('MCP_POOL_CLOSED');
    expect(pool.activeKeys()).toEqual([]);
    const { error } = await failure(() =>
      pool.callTool('a', stdioFixture(), 'echo', { text: 'x' }),
    );
    expect(error.code).toBe('MCP_POOL_CLOSED');
  });
});

describe('McpClientPool over HTTP', () => {
  it('lists and calls tools over Streamable HTTP', async () => {
    const server = await http(['--name', 'web']);
    newPool();
    const spec = httpSpec(server.url);
    expect((await pool.listTools('h', spec)).map((tool) => tool.name)).toContain('add');
    expect((await pool.callTool('h', spec, 'add', { a: 20, b: 22 })).structuredContent).toEqual({
      sum: 42,
    });
    expect(textOf(await pool.callTool('h', spec, 'whoami', {}))).toBe('web');
    expect(pool.activeKeys()).toEqual(['h']);
  });

  it('falls back to SSE for a server that only speaks the legacy transport', async () => {
    const server = await http(['--sse-only', '--tools', 'echo,upper']);
    newPool();
    const spec = httpSpec(server.url);
    expect((await pool.listTools('s', spec)).map((tool) => tool.name)).toEqual(['echo', 'upper']);
    expect(textOf(await pool.callTool('s', spec, 'upper', { text: 'sse ok' }))).toBe('SSE OK');
  });

  it('answers 401 without the required header with a hint, and works with it', async () => {
    const server = await http(['--require-header', `x-api-key=${HEADER_SECRET}`]);
    newPool();
    const { error } = await failure(() =>
      pool.listTools(
        'h',
        httpSpec(server.url, {
          'x-api-key': 'wrong-value-000',
          Authorization: `Bearer ${HEADER_SECRET}`,
        }),
      ),
    );
    expect(error.code).toBe('MCP_CONNECT_FAILED');
    expect(error.message).toBe(
      `MCP server "remote" at ${server.url} refused the connection with HTTP 401: check the headers (API key or token) in its template`,
    );
    expect(error.details).toMatchObject({ status: 401 });
    expect(printable(error)).not.toContain(HEADER_SECRET);
    expect(printable(error)).not.toContain('wrong-value-000');
    const tools = await pool.listTools('h', httpSpec(server.url, { 'X-Api-Key': HEADER_SECRET }));
    expect(tools.length).toBe(7);
  });

  it('names both statuses when neither Streamable HTTP nor SSE is served at the url', async () => {
    const server = await http();
    const url = server.url.replace(/\/mcp$/, '/nope');
    const { error } = await failure(() => newPool().listTools('h', httpSpec(url)));
    expect(error.code).toBe('MCP_CONNECT_FAILED');
    expect(error.message).toBe(
      `MCP server "remote" at ${url} answered HTTP 404 to Streamable HTTP and HTTP 404 to SSE: check its url in the template`,
    );
  });

  it('times out a server that accepts connections but never answers', async () => {
    const server = await http(['--hang']);
    newPool({ connectTimeoutMs: 1_000 });
    const { error, ms } = await failure(() => pool.listTools('h', httpSpec(server.url)));
    expect(error.code).toBe('MCP_TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(10_000);
  });

  it('fails a call in flight when the server goes away, and says so when it cannot reconnect', async () => {
    const server = await http();
    newPool();
    const spec = httpSpec(server.url);
    await pool.listTools('h', spec);
    const inFlight = pool.callTool('h', spec, 'slow', { ms: 60_000 });
    inFlight.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await server.stop();
    const { error, ms } = await failure(() => inFlight);
    expect(error.code).toBe('MCP_SERVER_EXITED');
    expect(error.message).toContain('MCP server "remote"');
    expect(ms).toBeLessThan(10_000);
    const next = await failure(() => pool.listTools('h', spec));
    expect(next.error.code).toBe('MCP_CONNECT_FAILED');
    expect(next.error.message).toBe(
      `Could not reach MCP server "remote" at ${server.url}: connection refused (ECONNREFUSED). Is the server running?`,
    );
  });
});

describe('McpClientPool reconnects', () => {
  it('to an HTTP server that restarted and forgot the session', async () => {
    const first = await http(['--name', 'first']);
    newPool();
    const spec = httpSpec(first.url);
    expect(textOf(await pool.callTool('h', spec, 'whoami', {}))).toBe('first');
    await first.stop();
    const second = await http(['--port', String(first.port), '--name', 'second']);
    expect(second.url).toBe(first.url);
    expect(textOf(await pool.callTool('h', spec, 'whoami', {}))).toBe('second');
  });
});

describe('McpClientPool with third-party servers', () => {
  it('lists and calls @modelcontextprotocol/server-filesystem', async () => {
    const root = path.join(tmp, 'files');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    writeFileSync(path.join(root, 'hello.txt'), 'hi');
    newPool();
    const spec: McpServerSpec = {
      name: 'files',
      transport: 'stdio',
      command: process.execPath,
      args: [filesystemServer, root],
    };
    const tools = await pool.listTools('fs', spec);
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['list_directory', 'read_text_file']),
    );
    const listing = await pool.callTool('fs', spec, 'list_directory', { path: root });
    expect(listing.isError).toBe(false);
    expect(textOf(listing)).toContain('[FILE] hello.txt');
    expect(textOf(listing)).toContain('[DIR] sub');
    // Outside the allowed root: the server refuses, as a tool error.
    const outside = await pool.callTool('fs', spec, 'list_directory', { path: path.dirname(tmp) });
    expect(outside.isError).toBe(true);
  });

  it('lists and calls @modelcontextprotocol/server-everything', async () => {
    newPool();
    const spec: McpServerSpec = {
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [everythingServer, 'stdio'],
    };
    const tools = await pool.listTools('ev', spec);
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const echo = await pool.callTool('ev', spec, 'echo', { message: 'héllo' });
    expect(textOf(echo)).toContain('héllo');
  });
});

describe('McpClientPool logs', () => {
  // Runs last: everything the pool logged above, at any level, including debug.
  it('never carry an env or header value of a spec', () => {
    expect(
      logs.some((record) => record.msg === 'MCP server exited; it will restart on next use'),
    ).toBe(true);
    expect(logs.some((record) => record.fields.server === 'leaky')).toBe(true);
    const text = JSON.stringify(logs);
    expect(text).not.toContain(ENV_SECRET);
    expect(text).not.toContain(HEADER_SECRET);
  });
});
