// Issue 31: a 7.5 s outage of the store (a libSQL server) failed the runs in flight, although
// docs/deploy.md says an outage shorter than the lease costs only the wait, and the driver's
// SQL error text reached the model as a tool result. Here a real sqld is killed right after a
// run's first model turn asked for a tool: the run waits for the store (it says so in the log),
// and once sqld is back the run completes with the tool's real answer. An outage longer than the
// wait stops the run without asking the model again, so no database text reaches it.
import { afterEach, describe, expect, it } from '@jest/globals';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { findSqld, SQLD_MISSING, startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import type { Run } from '@junction/store';
import type { RunProgressEvent } from '../src/runs/agent-runner.js';
import { createHarness, type Harness } from './run-harness.js';

const available = findSqld() !== undefined;
if (!available)
  process.stderr.write(`\n*** SKIPPING store-outage run tests: ${SQLD_MISSING} ***\n\n`);
const suite = available ? describe : describe.skip;

suite('a run whose store goes away mid-run', () => {
  let sqld: Sqld | undefined;
  let h: Harness | undefined;

  afterEach(async () => {
    // The store of a test that left sqld down closes with errors: they are not this test's point.
    await h?.close().catch(() => undefined);
    await sqld?.stop();
    h = undefined;
    sqld = undefined;
  });

  async function setUp(leaseMs: number): Promise<{ harness: Harness; server: Sqld }> {
    const server = await startSqld();
    sqld = server;
    const harness = await createHarness({ leaseMs }, { storeUrl: server.url });
    h = harness;
    harness.agent('calc', 'model: openai/gpt-test\ntools: [add]');
    await harness.sync();
    harness.fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    ]);
    return { harness, server };
  }

  /** Kills sqld (by its pid, at once) when the run's first model turn has asked for a tool. */
  function killOnFirstTurn(server: Sqld): (e: RunProgressEvent) => void {
    let killed = false;
    return (e) => {
      if (e.type !== 'model_turn' || killed || server.pid === undefined) return;
      killed = true;
      process.kill(server.pid, 'SIGKILL');
    };
  }

  const waitedLine = (harness: Harness): string | undefined =>
    harness.logLines.find((line) => line.includes('store unavailable: the run waits for it'));

  it('waits out an outage shorter than its lease and completes with the real tool answer', async () => {
    const { harness, server } = await setUp(60_000);
    const run = await harness.claimed('calc', 'Add 2 and 3');
    const done: Promise<Run> = harness.runner.execute(run, {
      workerId: 'test-worker',
      onEvent: killOnFirstTurn(server),
    });
    // Back once the run has met the outage (its log line), not after some time.
    await eventually('the run to wait for the store', async () => waitedLine(harness));
    await server.kill('SIGKILL'); // reaped, so start() can take the port again
    await server.start();
    const ended = await done;
    expect({ status: ended.status, final: ended.finalResponse, error: ended.error }).toEqual({
      status: 'completed',
      final: 'The sum is 5.',
      error: null,
    });
    // The model got the tool's answer, and nothing of the database.
    expect(harness.fake.requests).toHaveLength(2);
    const toolMessages = JSON.stringify(harness.fake.requests[1]!.body.messages);
    expect(toolMessages).toContain('5');
    expect(toolMessages).not.toMatch(/Failed query|SQLITE|STORE_|database|ECONNREFUSED/i);
    const stored = await harness.store.runEvents.list(run.id);
    expect(stored.map((e) => e.type)).toEqual(expect.arrayContaining(['model_turn', 'tool_call']));
  });

  it('stops without asking the model again when the outage outlasts the wait', async () => {
    // A 1.5 s lease: the run waits 1 s for the store, then stops.
    const { harness, server } = await setUp(1500);
    const run = await harness.claimed('calc', 'Add 2 and 3');
    const outcome = await harness.runner
      .execute(run, { workerId: 'test-worker', onEvent: killOnFirstTurn(server) })
      .then(
        (ended) => ({ ended, error: undefined }),
        (error: unknown) => ({ ended: undefined, error }),
      );
    // Its end could not be written either (the store is still away): the failure is the store's.
    expect(outcome.error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(waitedLine(harness)).toBeDefined();
    // The model was asked once: the store's error never came back to it as a tool result.
    expect(harness.fake.requests).toHaveLength(1);
  });
});
