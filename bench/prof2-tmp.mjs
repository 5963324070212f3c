import { startFake, startJunction } from './run-overhead/contenders.mjs';
const fake = await startFake({ tool: 'echo', toolArgs: '{"text":"x"}' });
const j = await startJunction(fake.url, { tool: 'echo', runner: { journalWrites: process.argv[2] !== 'off' } });
for (let i = 0; i < 50; i++) await j.runOnce(i);
const t0 = performance.now(); const N = 400;
for (let i = 0; i < N; i++) await j.runOnce(i);
console.log(process.argv[2], 'ms per run', ((performance.now() - t0) / N).toFixed(2));
await j.close(); fake.stop(); process.exit(0);
