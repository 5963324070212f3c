// `stats tokens` showed `$0.000000` for an agent whose cost is unknown: its runs with tokens used
// a model without a price, and a run of a priced model that recorded no token (it failed before
// the model answered) made the row count as priced (issue 31). Such a row shows `—` (docs/cli.md).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openStore } from '@junction/store';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const home = tempConfigHome();
const env = { XDG_CONFIG_HOME: home };

beforeAll(async () => {
  const init = await runCliAsync(['init'], env);
  if (init.status !== 0) throw new Error(`junction init failed: ${init.stderr}`);
  const store = await openStore({ url: path.join(home, 'junction', 'junction.db') });
  try {
    const environment = await store.environments.ensure('default');
    const runs: Array<[string, number, number]> = [
      ['openai/gpt-4o-mini', 0, 0], // priced, failed before any token
      ['openai-compatible/mystery', 120, 30], // tokens, no price
    ];
    for (const [model, input, output] of runs) {
      const run = await store.runs.create({
        agentName: 'reader',
        environmentId: environment.id,
        task: 'read',
        source: 'cli',
        model,
        parentRunId: null,
        traceId: null,
      });
      await store.runs.claimNext('test-worker', 60_000);
      await store.runs.updateProgress(run.id, {
        inputTokens: input,
        outputTokens: output,
        stepsTaken: 1,
      });
      await store.runs.markFailed(run.id, { status: 'error', error: 'stopped' });
    }
  } finally {
    await store.close();
  }
}, 60_000);

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('stats tokens with a cost that is unknown', () => {
  it('shows — for the agent and the total, never $0.000000, and null under --json', async () => {
    const [text, asJson] = await Promise.all([
      runCliAsync(['stats', 'tokens', '--group-by', 'agent'], env),
      runCliAsync(['stats', 'tokens', '--group-by', 'agent', '--json'], env),
    ]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^reader\s+2\s+120\s+30\s+150\s+—$/m);
    expect(text.stdout).toMatch(/^\(all\)\s+2\s+120\s+30\s+150\s+—$/m);
    expect(text.stdout).not.toContain('$0.000000');
    expect(text.stdout).toContain(
      'Cost unknown for 1 run: no price for openai-compatible/mystery.',
    );
    const stats = JSON.parse(asJson.stdout) as {
      rows: Array<{ key: string; cost_usd: number | null; unpriced_runs: number }>;
      total: { cost_usd: number | null };
    };
    expect(stats.rows).toEqual([
      expect.objectContaining({ key: 'reader', cost_usd: null, unpriced_runs: 1 }),
    ]);
    expect(stats.total.cost_usd).toBeNull();
  });
});
