// One run-overhead contender alone in this process (run.mjs starts it with --expose-gc):
//   node --expose-gc alone.mjs minimal|junction <fake model url> <runs>
// Prints one JSON line: ms from this process's start to its first completed run (imports,
// set-up and the run), and the heap in MB after `runs` runs and a full GC.
import { performance } from 'node:perf_hooks';
import { minimalLoop, startServed } from './contenders.mjs';

const [contender, fakeUrl, runsArg] = process.argv.slice(2);
const runs = Number(runsArg);
if (!['minimal', 'junction'].includes(contender) || !fakeUrl || !(runs > 0)) {
  process.stderr.write(
    'usage: node --expose-gc alone.mjs minimal|junction <fake model url> <runs>\n',
  );
  process.exit(2);
}
const it = contender === 'minimal' ? await minimalLoop(fakeUrl) : await startServed(fakeUrl);
await it.runOnce(0);
// performance.now() counts from the process's start (its time origin).
const firstRunMs = performance.now();
for (let i = 1; i < runs; i += 1) await it.runOnce(i);
globalThis.gc();
const heapMb = process.memoryUsage().heapUsed / 1024 / 1024;
await it.close();
process.stdout.write(`${JSON.stringify({ contender, firstRunMs, heapMb })}\n`);
process.exit(0);
