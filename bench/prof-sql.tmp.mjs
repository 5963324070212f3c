import { startFake, startJunction } from './run-overhead/contenders.mjs';
const writes = process.argv[2] !== 'skip';
const fake = await startFake({ tool: 'echo', toolArgs: '{"text":"a side effect"}' });
const j = await startJunction(fake.url, { tool: 'echo', runner: writes ? {} : { journalWrites: false } });
for (let i = 0; i < 100; i++) await j.runOnce(i);
globalThis.__sqlt = new Map();
const N = Number(process.env.XN ?? 500);
for (let i = 0; i < N; i++) await j.runOnce(i);
const rows = [...globalThis.__sqlt].sort((a, b) => b[1][0] - a[1][0]);
console.log(writes ? 'DURABLE' : 'SKIP', 'µs per run by statement (total, count per run, µs each)');
for (const [k, [t, n, ds]] of rows.slice(0, 14)) { const s = (ds ?? []).sort((a, b) => a - b); const q = (f) => (s[Math.floor(f * (s.length - 1))] ?? 0).toFixed(0); console.log((t / N).toFixed(0).padStart(6), (n / N).toFixed(1).padStart(5), (t / n).toFixed(0).padStart(6), 'p50', q(0.5).padStart(5), 'p90', q(0.9).padStart(5), 'p99', q(0.99).padStart(6), k); }
await j.close(); fake.stop();
