// GET /runs/<id> on the webhook port answered {"run": {"id": …}} where POST /execute and the REST
// API name the id `run_id`. The run now carries `run_id` too (`id` kept for existing callers),
// and docs/webhooks.md shows exactly the fields the route answers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openFixture, post, startWebhookApp, type Fixture, type Listening } from './helpers.js';

const doc = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/webhooks.md'),
  'utf8',
);

let fx: Fixture;
let app: Listening;

beforeEach(async () => {
  fx = await openFixture();
  app = await startWebhookApp(fx);
});
afterEach(async () => {
  await app.close();
  await fx.close();
});

/** The section of docs/webhooks.md about GET /runs/<run_id>. */
function runSection(): string {
  const start = doc.indexOf('## `GET /runs/<run_id>`');
  return doc.slice(start, doc.indexOf('\n## ', start + 1));
}

describe('GET /runs/<run_id> names the id as POST /execute and REST do', () => {
  it('answers run_id (and id, the same value) inside {"run": …}', async () => {
    const accepted = (await (
      await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'Say hi' })
    ).json()) as { run_id: number };
    const body = (await (await fetch(`${app.url}/runs/${accepted.run_id}`)).json()) as {
      run: Record<string, unknown>;
    };
    expect(Object.keys(body)).toEqual(['run']);
    expect(body.run.run_id).toBe(accepted.run_id);
    expect(body.run.id).toBe(accepted.run_id);
  });

  it('is documented with exactly the fields it answers', async () => {
    const accepted = (await (
      await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'Say hi' })
    ).json()) as { run_id: number };
    const live = (await (await fetch(`${app.url}/runs/${accepted.run_id}`)).json()) as {
      run: Record<string, unknown>;
    };
    const section = runSection();
    const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!) as {
      run: Record<string, unknown>;
    };
    expect(Object.keys(example.run)).toEqual(Object.keys(live.run));
    const tableFields = [...section.matchAll(/^\| (`[^|]+`) +\|/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((f) => f[1]!),
    );
    expect(tableFields.filter((f) => f !== 'field').sort()).toEqual(Object.keys(live.run).sort());
  });
});
