// How long `junction` takes to answer, against `node -e 0` (Node starting and doing nothing)
// measured in the same run: --version and --help, and three lists that open the store
// (env list, agent list, runs list) in a fresh workspace made by `junction init`. The
// contenders run round-robin, one process at a time, so drift in the machine hits all alike.
// Targets: --version and --help ≤ 2× node -e 0; env list, agent list, runs list ≤ 4×.
// Exit code 1 when a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../shared.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '2' },
  },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/cli/bin/run.js');
const home = mkdtempSync(path.join(os.tmpdir(), 'junction-bench-cli-start-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: home };

/** [label, argv after node, target ratio or undefined for the baseline]. */
const contenders = [
  ['node -e 0', ['-e', '0'], undefined],
  ['junction --version', [bin, '--version'], 2],
  ['junction --help', [bin, '--help'], 2],
  ['junction env list', [bin, 'env', 'list'], 4],
  ['junction agent list', [bin, 'agent', 'list'], 4],
  ['junction runs list', [bin, 'runs', 'list'], 4],
];

/** Wall time of one `node args` to its exit, in ms; throws when it fails. */
function once(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

try {
  const init = spawnSync(process.execPath, [bin, 'init'], { env, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`junction init failed: ${init.stderr}`);
  const times = contenders.map(() => []);
  for (let i = 0; i < warmup + runs; i++) {
    contenders.forEach(([, args], j) => {
      const ms = once(args);
      if (i >= warmup) times[j].push(ms);
    });
  }
  const base = median(times[0]);
  let missed = 0;
  process.stdout.write(
    `cli-start: median of ${runs} runs each, round-robin; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}\n`,
  );
  contenders.forEach(([label, , target], j) => {
    const m = median(times[j]);
    const ratio = m / base;
    const verdict =
      target === undefined ? '' : ratio <= target ? `  ≤ ${target}× PASS` : `  > ${target}× MISS`;
    if (target !== undefined && ratio > target) missed++;
    process.stdout.write(
      `${label.padEnd(22)} ${m.toFixed(0).padStart(6)} ms  ${ratio.toFixed(2)}×${verdict}\n`,
    );
  });
  process.exitCode = missed > 0 ? 1 : 0;
} finally {
  rmSync(home, { recursive: true, force: true });
}
