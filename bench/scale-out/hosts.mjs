// The hosts of a scale-out deployment, on this machine: one workspace on a shared store (sqld),
// `junction serve --no-workers` as the API host and `junction worker` processes as the worker
// hosts, each a child process of the benchmark, stopped by its PID.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/cli/bin/run.js');

/** The agent every run starts: one model turn, no tools (the fake echoes the task). */
export const AGENT = 'assistant';
const PROMPT = '{{role "system"}}\nYou answer.\n{{role "user"}}\n{{userInput}}\n';

/** A child's output is drained and only its tail kept, for the error that names it. */
const TAIL_CHARS = 4000;
/** How long a host may take to say it is up, and a one-off command to finish. */
const START_MS = 30_000;
/** How long a stopped host may drain before it is killed. */
const STOP_GRACE_MS = 5_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The child processes this benchmark started: each spawned attached (`detached: false`) and
 * stopped by its PID — SIGTERM, then SIGKILL after a grace period.
 */
export class Children {
  #live = new Map();
  #describe = new Map();

  /**
   * Starts `junction <args>` with `env`, with a `hostname` of its own when given (see
   * `canNameHosts`); the handle's `ready(pattern)` waits for its stdout.
   */
  spawnCli(name, args, env, { hostname } = {}) {
    const argv = [process.execPath, CLI, ...args];
    // `exec` at each step: the PID held (and signalled) is node's own.
    const [file, ...rest] =
      hostname === undefined
        ? argv
        : ['unshare', '--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', hostname, ...argv];
    const child = spawn(file, rest, {
      env,
      detached: false,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out = (out + d).slice(-TAIL_CHARS)));
    child.stderr.setEncoding('utf8').on('data', (d) => (err = (err + d).slice(-TAIL_CHARS)));
    const exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.#live.delete(child.pid);
        this.#describe.delete(child.pid);
        resolve(code ?? signal);
      }),
    );
    const spawned = new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    spawned.catch(() => undefined); // a one-off command's failure is its exit code
    const describe = () => `${name} (pid ${child.pid}): ${out.trim()} ${err.trim()}`.trim();
    this.#live.set(child.pid, child);
    this.#describe.set(child.pid, describe);
    return {
      name,
      pid: child.pid,
      exited,
      describe,
      /** Resolves once stdout matches `pattern`; rejects when the process exits first. */
      async ready(pattern) {
        await spawned;
        const deadline = Date.now() + START_MS;
        for (;;) {
          if (pattern.test(out)) return out;
          if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`${name} exited before it was ready: ${describe()}`);
          }
          if (Date.now() > deadline) throw new Error(`${name} not ready in time: ${describe()}`);
          await sleep(20);
        }
      },
    };
  }

  /** Runs `junction <args>` to its end; throws with its output when it fails. */
  async runCli(name, args, env) {
    const handle = this.spawnCli(name, args, env);
    const timer = setTimeout(() => this.#signal(handle.pid, 'SIGKILL'), START_MS);
    const code = await handle.exited;
    clearTimeout(timer);
    if (code !== 0)
      throw new Error(`junction ${args.join(' ')} failed (${code}): ${handle.describe()}`);
  }

  /** Stops one child by its PID: SIGTERM, SIGKILL after the grace period; resolves once gone. */
  async stop(handle) {
    if (!this.#live.has(handle.pid)) return;
    this.#signal(handle.pid, 'SIGTERM');
    const timer = setTimeout(() => this.#signal(handle.pid, 'SIGKILL'), STOP_GRACE_MS);
    await handle.exited;
    clearTimeout(timer);
  }

  /** Kills one child by its PID at once (SIGKILL, no grace); resolves once it is gone. */
  async kill(handle) {
    this.#signal(handle.pid, 'SIGKILL');
    await handle.exited;
  }

  /** Stops every child still running, each by its PID. */
  async stopAll() {
    await Promise.all(
      [...this.#live.values()].map(async (child) => {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        this.#signal(child.pid, 'SIGTERM');
        const timer = setTimeout(() => this.#signal(child.pid, 'SIGKILL'), STOP_GRACE_MS);
        await gone;
        clearTimeout(timer);
      }),
    );
  }

  /** What every child still running last printed (the tail), for a failure's report. */
  tails() {
    return [...this.#live.keys()].map((pid) => this.#describe.get(pid)());
  }

  /** SIGKILLs every child still running, by its PID, at once (the time bound ran out). */
  killAllNow() {
    for (const pid of this.#live.keys()) this.#signal(pid, 'SIGKILL');
  }

  #signal(pid, signal) {
    if (!this.#live.has(pid)) return;
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Whether a child can be given a hostname of its own (a UTS namespace: `unshare --uts`, which
 * root may make). Worker ids start with the hostname: a worker tells a dead worker of its own
 * host by its PID, one of another host only by its lease.
 */
export function canNameHosts() {
  return spawnSync('unshare', ['--uts', 'true']).status === 0;
}

/** Waits until `url` (a /health) answers 200 and, with `bus`, says its NATS bus is connected. */
async function healthy(url, bus, describe) {
  const deadline = Date.now() + START_MS;
  for (;;) {
    try {
      const res = await fetch(url);
      const body = await res.json();
      if (res.status === 200 && (!bus || body.queue?.connected === true)) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not healthy in time: ${describe()}`);
    await sleep(50);
  }
}

/**
 * A workspace (its own temporary XDG_CONFIG_HOME) whose store is `databaseUrl`, talking to the
 * fake model at `modelUrl` with `apiKey`: initialised, the agent written and synced into the
 * store. Its `env(bus)` is every host's environment, with `JUNCTION_QUEUE_NATS_URL` when `bus`
 * is a NATS URL; `remove()` deletes the folder. Optional: `config` (more of config.yaml),
 * `prompt` (the agent's prompt file) and `mcpServers` (the default environment's tool servers;
 * none by default).
 */
export async function prepareWorkspace(
  children,
  { databaseUrl, modelUrl, apiKey, config = '', prompt = PROMPT, mcpServers },
) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-scale-out-'));
  const env = (bus) => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    XDG_CONFIG_HOME: home,
    JUNCTION_DATABASE_URL: databaseUrl,
    JUNCTION_TRACES_ENABLED: 'false',
    OPENAI_API_KEY: apiKey,
    ...(bus ? { JUNCTION_QUEUE_NATS_URL: bus } : {}),
  });
  const remove = () => rmSync(home, { recursive: true, force: true });
  try {
    await children.runCli('init', ['init'], env());
    const workspace = path.join(home, 'junction');
    const envDir = path.join(workspace, 'environments', 'default');
    writeFileSync(
      path.join(workspace, 'config.yaml'),
      `ai_base_url: ${modelUrl}\nai_model: gpt-bench\n${config}`,
    );
    // The example MCP server (npx) is not wanted: the agent calls the given servers, or none.
    rmSync(path.join(envDir, 'filesystem.json'));
    if (mcpServers) {
      writeFileSync(path.join(envDir, 'tools.json'), JSON.stringify({ mcpServers }));
    }
    writeFileSync(path.join(envDir, 'agents', `${AGENT}.prompt`), prompt);
    await children.runCli('sync', ['sync', 'default'], env());
  } catch (err) {
    remove();
    throw err;
  }
  const logFile = path.join(home, 'junction', 'logs', 'junction.log');
  return { env, remove, problems: () => logProblems(logFile) };
}

/**
 * The warn and error lines every host wrote to the workspace's log (JSON lines, or text),
 * counted by message: `[{ level, msg, count }]`, most frequent first.
 */
function logProblems(file) {
  if (!existsSync(file)) return [];
  const counts = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let level;
    let msg;
    try {
      ({ level, msg } = JSON.parse(line));
    } catch {
      const m = /\b(error|warn)\b\W*(.*)$/i.exec(line);
      if (m) [, level, msg] = m;
    }
    level = level?.toLowerCase();
    if (level !== 'warn' && level !== 'error') continue;
    const key = `${level}: ${msg}`;
    counts.set(key, { level, msg, count: (counts.get(key)?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count);
}

/** `junction serve --no-workers` on free ports; `api` is its REST base URL. */
export async function startApiHost(children, env) {
  const ports = [];
  for (let i = 0; i < 5; i++) ports.push(await freePort());
  const [api, mcp, webhook, receiver, viewer] = ports;
  const handle = children.spawnCli(
    'api host',
    [
      'serve',
      '--no-workers',
      ...['--api-port', String(api), '--mcp-port', String(mcp)],
      ...['--webhook-port', String(webhook), '--receiver-port', String(receiver)],
      ...['--viewer-port', String(viewer)],
    ],
    env,
  );
  await handle.ready(/serving MCP/);
  await healthy(`http://127.0.0.1:${api}/health`, env.JUNCTION_QUEUE_NATS_URL, handle.describe);
  return { ...handle, api: `http://127.0.0.1:${api}/api/v1` };
}

/**
 * `junction worker --concurrency n` (named `hostname` when given), ready once its /health says
 * so (and its bus is up).
 */
export async function startWorkerHost(children, env, { name, concurrency, hostname }) {
  const port = await freePort();
  const handle = children.spawnCli(
    name,
    ['worker', '--concurrency', String(concurrency), '--health-port', String(port)],
    env,
    { hostname },
  );
  await handle.ready(/^\s+queue\s/m);
  await healthy(`http://127.0.0.1:${port}/health`, env.JUNCTION_QUEUE_NATS_URL, handle.describe);
  return handle;
}
