// The run door with an idempotency key: a new key is written without a look-up first, and the
// key's rules (replay within 24 h, another request refused, an expired key freed) still hold.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openStore, type Agent, type Store } from '@junction/store';
import { AgentCoreError } from '../src/errors.js';
import { IDEMPOTENCY_WINDOW_MS, submitRun } from '../src/runs/submit-run.js';

let dir: string;
let store: Store;
let agent: Agent;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-idem-'));
  store = await openStore({ url: `file:${path.join(dir, 'junction.db')}` });
  const env = await store.environments.ensure('default');
  agent = await store.agents.upsert(env.id, { name: 'writer', promptPath: '/x.prompt' });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (task: string) => ({
  agent_id: agent.id,
  task,
  source: 'api' as const,
  idempotency_key: 'order-42',
});

describe('submitRun with an idempotency key', () => {
  it('writes a new key at once and answers a repeat with the first run', async () => {
    const reads: string[] = [];
    const find = store.runs.findByIdempotencyKey.bind(store.runs);
    store.runs.findByIdempotencyKey = (key) => {
      reads.push(key);
      return find(key);
    };
    const first = await submitRun({ store, checkModel: () => undefined }, request('ship it'));
    expect(first.replayed).toBe(false);
    // A new key costs no look-up: the store refuses a second run of a key by itself.
    expect(reads).toEqual([]);
    const again = await submitRun({ store, checkModel: () => undefined }, request('ship it'));
    expect(again).toMatchObject({ replayed: true, run: { id: first.run.id } });
    expect(await store.runs.list()).toHaveLength(1);
  });

  it('answers a repeat with its first run even when the model could not start a new one now', async () => {
    const first = await submitRun({ store, checkModel: () => undefined }, request('ship it'));
    const modelGone = (): never => {
      throw new AgentCoreError('MODEL_API_KEY_MISSING', 'no key');
    };
    const again = await submitRun({ store, checkModel: modelGone }, request('ship it'));
    expect(again).toMatchObject({ replayed: true, run: { id: first.run.id } });
    // A new key with the model gone is refused, and nothing is written.
    await expect(
      submitRun({ store, checkModel: modelGone }, { ...request('other'), idempotency_key: 'new' }),
    ).rejects.toMatchObject({ code: 'MODEL_API_KEY_MISSING' });
    expect(await store.runs.list()).toHaveLength(1);
  });

  it('refuses the key with another request, and frees a key past its window for a new run', async () => {
    const first = await submitRun({ store, checkModel: () => undefined }, request('ship it'));
    await expect(
      submitRun({ store, checkModel: () => undefined }, request('something else')),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const later = () => new Date(Date.now() + IDEMPOTENCY_WINDOW_MS + 1000);
    const fresh = await submitRun(
      { store, checkModel: () => undefined, now: later },
      request('something else'),
    );
    expect(fresh.replayed).toBe(false);
    expect(fresh.run.id).not.toBe(first.run.id);
    expect((await store.runs.get(first.run.id))?.idempotencyKey ?? null).toBeNull();
    expect((await store.runs.findByIdempotencyKey(fresh.run.idempotencyKey ?? ''))?.id).toBe(
      fresh.run.id,
    );
  });
});
