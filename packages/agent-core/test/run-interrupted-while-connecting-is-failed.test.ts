// Regression (issue 31): a run was marked as having acted when its tool call *started* — before
// the tool server was even connected — so a run stopped while its server was still starting
// (21 of 33 interrupted runs never reached a tool) was failed instead of re-queued. The mark is
// now written right before tools/call goes out on a connected client. Here a real MCP server
// process holds its start (and its answer) until the test lets it go, over a TCP gate, and the
// run is interrupted by the workers' graceful stop, the recovery path of a shutdown. Since issue
// 32 a run interrupted after its call was sent is resumed too, from its journal.
import { once, EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from '@jest/globals';
import type { Run } from '@junction/store';
import { RunWorkers } from '../src/runs/run-workers.js';
import { submitRun, waitForRun } from '../src/runs/submit-run.js';
import { serverKey } from '../src/sync/sync-environment.js';
import { createHarness, type Harness } from './run-harness.js';

const gatedServer = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'gated-mcp-server.mjs',
);

/** The test's side of the gated server: who is starting, which calls arrived; go and answer. */
class Gate extends EventEmitter {
  /** Let a starting server serve at once (else it waits for `go`). */
  opensAtOnce = true;
  /** Let a call answer at once (else it waits for `answer`). */
  answersAtOnce = true;
  readonly calls: string[] = [];
  readonly sockets: Socket[] = [];
  readonly #server: Server;

  constructor() {
    super();
    this.#server = createServer((socket) => {
      this.sockets.push(socket);
      socket.setEncoding('utf8');
      let buffered = '';
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          this.#heard(socket, buffered.slice(0, end));
          buffered = buffered.slice(end + 1);
        }
      });
      socket.on('error', () => undefined);
    });
  }

  #heard(socket: Socket, line: string): void {
    if (line.startsWith('hello ')) {
      if (this.opensAtOnce) socket.write('go\n');
      this.emit('hello', socket);
    } else if (line.startsWith('called ')) {
      this.calls.push(line.slice('called '.length));
      if (this.answersAtOnce) socket.write('answer\n');
      this.emit('called', socket);
    }
  }

  async listen(): Promise<number> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

let h: Harness | undefined;
let gate: Gate | undefined;
const queues: RunWorkers[] = [];

afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.stop({ drainMs: 100 });
  await h?.close();
  await gate?.close();
  h = undefined;
  gate = undefined;
});

/** A harness whose agent `actor` has the gated server's tool `act`; synced, then disconnected. */
async function setUp(): Promise<{ h: Harness; gate: Gate; agentId: number }> {
  gate = new Gate();
  const port = await gate.listen();
  h = await createHarness();
  writeFileSync(
    path.join(h.workspace.environmentDir('default'), 'gated.json'),
    JSON.stringify({
      mcpServers: { gated: { command: process.execPath, args: [gatedServer, String(port)] } },
    }),
  );
  h.agent('actor', 'model: openai/gpt-test\ntools: [act]');
  await h.sync();
  // Sync left the server connected; the run must start it again, as a fresh worker does.
  await h.pool.close(serverKey('default', 'gated'));
  const actor = await h.get('actor');
  return { h, gate, agentId: actor.id };
}

function startWorkers(harness: Harness): RunWorkers {
  const queue = new RunWorkers({
    store: harness.store,
    runner: harness.runner,
    logger: harness.logger,
    pollMs: 20,
    concurrency: 1,
  });
  queues.push(queue);
  return queue;
}

async function submit(harness: Harness, agentId: number, queue: RunWorkers): Promise<Run> {
  const { run } = await submitRun(
    { store: harness.store, checkModel: () => undefined, dispatch: queue },
    { agent_id: agentId, task: 'do it once', source: 'api' },
  );
  return run;
}

/** Stops the workers now: the run in flight is interrupted (drain of 0 ms). */
async function interrupt(queue: RunWorkers): Promise<{ requeued: number }> {
  queues.splice(queues.indexOf(queue), 1);
  return queue.stop({ drainMs: 0 });
}

const ACT = { toolCalls: [{ name: 'act', arguments: { text: 'effect' } }] };

it('a run interrupted while its tool server is still connecting is re-queued, then completes calling the tool once', async () => {
  const { h, gate, agentId } = await setUp();
  // Both attempts ask for the tool; the second then finishes.
  h.fake.script([ACT, ACT, { text: 'all done' }]);
  gate.opensAtOnce = false;
  const first = startWorkers(h);
  const starting = once(gate, 'hello') as Promise<[Socket]>;
  const run = await submit(h, agentId, first);
  await first.start();
  const [held] = await starting;

  // The tool server is starting: nothing has been sent to it, so nothing is marked.
  expect((await h.store.runs.get(run.id))?.actedAt).toBeNull();
  expect(await interrupt(first)).toEqual({ requeued: 1 });
  expect(await h.store.runs.get(run.id)).toMatchObject({
    status: 'queued',
    actedAt: null,
    workerId: null,
  });
  expect(gate.calls).toEqual([]);

  gate.opensAtOnce = true;
  held.write('go\n');
  const second = startWorkers(h);
  await second.start();
  const done = await waitForRun(h.store, run.id, { timeoutMs: 30_000 }, second);
  expect(done).toMatchObject({ status: 'completed', finalResponse: 'all done' });
  expect(done.actedAt).toBeInstanceOf(Date);
  expect(gate.calls).toEqual(['effect']);
});

it('a run interrupted while its tool call runs is handed over after the call and resumed: nothing is asked or called again (issue 32)', async () => {
  const { h, gate, agentId } = await setUp();
  // Turn 2 may be sent once before the stop takes effect (then cut) and once when resumed.
  h.fake.script([ACT, { text: 'resumed and done' }, { text: 'resumed and done' }]);
  gate.answersAtOnce = false;
  const first = startWorkers(h);
  const called = once(gate, 'called') as Promise<[Socket]>;
  const run = await submit(h, agentId, first);
  await first.start();
  const [inFlight] = await called;

  // Journaled (and marked) before the call left.
  expect((await h.store.runs.get(run.id))?.actedAt).toBeInstanceOf(Date);
  // The graceful stop waits for the call under way, then puts the run back at the boundary.
  const stopping = interrupt(first);
  inFlight.write('answer\n');
  expect(await stopping).toEqual({ requeued: 1 });
  expect(await h.store.runs.get(run.id)).toMatchObject({ status: 'queued', attempt: 1 });

  const second = startWorkers(h);
  await second.start();
  const done = await waitForRun(h.store, run.id, { timeoutMs: 30_000 }, second);
  expect(done).toMatchObject({
    status: 'completed',
    finalResponse: 'resumed and done',
    attempt: 2,
  });
  // The tool was called once, and turn 1 (the only request without the tool's result) was
  // not asked again.
  expect(gate.calls).toEqual(['effect']);
  const turnOne = h.fake.requests.filter(
    (r) => !JSON.stringify(r.body.messages).includes('"role":"tool"'),
  );
  expect(turnOne).toHaveLength(1);
  const events = (await h.store.runEvents.list(run.id)).map((e) => [e.type, e.payload]);
  expect(events).toContainEqual([
    'attempt_ended',
    expect.objectContaining({ attempt: 1, reason: 'graceful stop' }),
  ]);
  expect(events).toContainEqual([
    'resumed',
    expect.objectContaining({ attempt: 2, from_step: 2, replayed_tool_calls: 1 }),
  ]);
  expect(events.filter(([type]) => type === 'tool_call')).toHaveLength(1);
  expect(events.filter(([type]) => type === 'model_turn')).toHaveLength(2);
});
