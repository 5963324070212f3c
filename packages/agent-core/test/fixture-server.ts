// Starting the fixture MCP server (tooling/fixtures/mcp-server.mjs) from tests.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** Absolute path of the fixture MCP server; run it with `process.execPath`. */
export const fixtureServerPath: string = createRequire(import.meta.url).resolve(
  '@junction/tooling/fixtures/mcp-server.mjs',
);

/** A fixture server listening on 127.0.0.1. */
export interface HttpFixture {
  /** `http://127.0.0.1:<port>/mcp`, or `…/sse` when started with `--sse-only`. */
  url: string;
  port: number;
  pid: number;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Stops the server (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 2_000;

/** Starts the fixture over HTTP on an ephemeral port; `args` are extra flags (`--sse-only`, `--tools add`, …). */
export async function startHttpFixture(args: string[] = []): Promise<HttpFixture> {
  const child = spawn(
    process.execPath,
    [fixtureServerPath, '--transport', 'http', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `fixture did not print LISTENING within ${START_TIMEOUT_MS} ms; stderr: ${stderr}`,
        ),
      );
    }, START_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const match = /^LISTENING (\d+)$/m.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`fixture exited (${signal ?? code}) before listening; stderr: ${stderr}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  return {
    url: `http://127.0.0.1:${port}${args.includes('--sse-only') ? '/sse' : '/mcp'}`,
    port,
    pid: child.pid ?? -1,
    stderr: () => stderr,
    stop,
  };
}
