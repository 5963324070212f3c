// What the management-client tests share: a real libSQL store in a temporary folder with an
// environment, two agents and a tool server; a logger whose lines are kept; settings pointing at
// the fake platform of tooling/fixtures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { openStore, type Store } from '@junction/store';
import { createLogger, type RootLogger } from '@junction/telemetry';
import { TLS_FILES } from '@junction/tooling/fixtures/fake-platform.mjs';
import type { ManagementSettings } from '../src/index.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

export const GOOD_KEY = 'reg-good-key-0001';

export interface Harness {
  dir: string;
  store: Store;
  logger: RootLogger;
  /** Every log line so far (JSON text). */
  logs(): string;
  settings(endpoint: string, patch?: Partial<ManagementSettings>): ManagementSettings;
  close(): Promise<void>;
}

export async function harness(): Promise<Harness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-mgmt-'));
  const store = await openStore({ url: `file:${path.join(dir, 'junction.db')}` });
  const env = await store.environments.ensure('default');
  const helper = await store.agents.create(env.id, {
    name: 'helper',
    description: 'Answers questions',
    model: 'gpt-4o-mini',
    maxSteps: 5,
  });
  await store.agents.create(env.id, { name: 'reporter', description: 'Writes reports' });
  const server = await store.mcpServers.upsert(env.id, {
    name: 'files',
    transport: 'stdio',
    command: 'node',
    args: ['server.mjs', '--token', 'tok-secret-value-123456'],
  });
  const [tool] = await store.tools.replaceForServer(server.id, [
    { name: 'read_file', description: 'Reads a file' },
  ]);
  await store.agents.setToolIds(helper.id, [tool!.id]);
  let text = '';
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    env: {},
    stream: new Writable({
      write(chunk: Buffer, _enc, done): void {
        text += chunk.toString();
        done();
      },
    }),
  });
  return {
    dir,
    store,
    logger,
    logs: () => text,
    settings: (endpoint, patch = {}) => ({
      endpoint,
      useTls: true,
      ca: readFileSync(TLS_FILES.ca),
      key: GOOD_KEY,
      keySource: 'config',
      name: 'station-a',
      tags: ['test'],
      environment: 'default',
      configHome: dir,
      ...patch,
    }),
    async close() {
      await logger.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Asks until `check` holds; fails naming `what` only on a hang. */
export async function until(check: () => boolean, what: string): Promise<void> {
  await eventually(what, check, { everyMs: 20 });
}
