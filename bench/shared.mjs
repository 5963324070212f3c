// Pieces the benchmarks share: the fake model in its own process, and the statistics.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const fakePath = require.resolve('@junction/tooling/fixtures/fake-openai.mjs');

/**
 * Starts the fake OpenAI-compatible model (tooling/fixtures/fake-openai.mjs) in a process of
 * its own with `args`; resolves with its base URL and a stop function once it listens.
 */
export async function startFakeModel(args) {
  const child = spawn(process.execPath, [fakePath, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await listeningPort(child, 'fake model', 10_000);
  return { url: `http://127.0.0.1:${port}/v1`, stop: () => child.kill('SIGTERM') };
}

/**
 * The port a fixture child process prints (`LISTENING <port>` on its stdout) once it listens;
 * rejects naming `what` when it has not within `ms`.
 */
export function listeningPort(child, what, ms) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start`)), ms);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
}

/** The median of `xs`. */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The 95th percentile of `xs`. */
export const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.ceil(0.95 * xs.length) - 1];

/** Alternates the two contenders run by run so drift (JIT, machine load) hits both alike. */
export async function sequentialPair(a, b, { warmup, runs }) {
  for (let i = 0; i < warmup; i++) {
    await a(i);
    await b(i);
  }
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    await a(i);
    ta.push(performance.now() - t0);
    t0 = performance.now();
    await b(i);
    tb.push(performance.now() - t0);
  }
  process.stderr.write(`  ${runs} sequential runs each done\n`);
  return [
    { median: median(ta), p95: p95(ta) },
    { median: median(tb), p95: p95(tb) },
  ];
}
