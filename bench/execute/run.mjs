#!/usr/bin/env node
// bench/execute: accepted POST /execute requests/s and p99 latency at 50 keep-alive
// connections on loopback, Junction's webhook app (validation, auth, agent lookup, a queued
// run written to a libSQL file) against a bare express app answering 202, in one run.
//
//   pnpm build && pnpm --filter @junction/bench execute [-- --connections 50 --seconds 5 --rounds 5]
// Each round runs both servers back to back (who goes first alternates); the ratio is the
// median of the rounds' ratios. The load stops by itself after each round.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { listeningPort } from '../shared.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
  },
});
const CONNECTIONS = Number(values.connections);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
// Accepted requests/s against bare express (issue 12 raised it from 0.5×).
const TARGET = 0.8;

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-execute-bench-'));
const children = [];

function start(kind, ...args) {
  const child = spawn(process.execPath, [path.join(here, 'servers.mjs'), kind, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return listeningPort(child, `${kind} server`, 20_000);
}

const body = JSON.stringify({ agent_name: 'bench', task: 'benchmark task', variables: { k: 'v' } });

/** Keeps CONNECTIONS requests in flight for SECONDS; returns accepted count and latencies. */
async function load(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies = [];
  let accepted = 0;
  let other = 0;
  const end = performance.now() + SECONDS * 1000;
  const one = () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/execute',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: 'Bearer bench-key',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - t0);
            if (res.statusCode === 202) accepted += 1;
            else other += 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        other += 1;
        resolve();
      });
      req.end(body);
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  if (other > 0) throw new Error(`${other} requests were not accepted`);
  return { accepted, elapsed, latencies };
}

const p99 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(0.99 * s.length) - 1];
};

try {
  process.stderr.write(
    `execute: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server\n`,
  );
  const junctionPort = await start('junction', path.join(dir, 'junction.db'));
  const barePort = await start('bare');
  await load(junctionPort); // warm-up both
  await load(barePort);
  const totals = { junction: { n: 0, s: 0, lat: [] }, bare: { n: 0, s: 0, lat: [] } };
  const pairRatios = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['junction', 'bare'] : ['bare', 'junction'];
    const rates = {};
    for (const name of order) {
      const res = await load(name === 'junction' ? junctionPort : barePort);
      totals[name].n += res.accepted;
      totals[name].s += res.elapsed;
      totals[name].lat.push(...res.latencies);
      rates[name] = res.accepted / res.elapsed;
    }
    pairRatios.push(rates.junction / rates.bare);
    process.stderr.write(
      `  round ${r + 1}: bare ${rates.bare.toFixed(0)}/s, junction ${rates.junction.toFixed(0)}/s, ratio ${(rates.junction / rates.bare).toFixed(2)}x\n`,
    );
  }
  const rate = (t) => t.n / t.s;
  // The median of the rounds' ratios: each round pairs the two servers back to back, so a
  // burst of machine noise in one round (it moves the bare app's rate most) counts once.
  const sorted = [...pairRatios].sort((a, b) => a - b);
  const ratio = sorted[Math.floor(sorted.length / 2)];
  console.log('');
  console.log('server      accepted/s    p99 ms');
  console.log(
    `bare        ${rate(totals.bare).toFixed(0).padStart(10)}  ${p99(totals.bare.lat).toFixed(2).padStart(8)}`,
  );
  console.log(
    `junction    ${rate(totals.junction).toFixed(0).padStart(10)}  ${p99(totals.junction.lat).toFixed(2).padStart(8)}`,
  );
  console.log(
    `ratio       ${ratio.toFixed(2).padStart(9)}x  target >= ${TARGET.toFixed(2)}x  ${ratio >= TARGET ? 'PASS' : 'FAIL'}  (median of ${ROUNDS} rounds, ${sorted[0].toFixed(2)}x–${sorted[sorted.length - 1].toFixed(2)}x)`,
  );
  process.exitCode = ratio >= TARGET ? 0 : 1;
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
