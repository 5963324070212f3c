// The api-server holds the management channel like `junction serve`: configured by config.yaml
// and JUNCTION_MANAGEMENT_* variables, it registers, /health says so, and the registration key
// is in no log line; stopping it ends the session.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakePlatform, type FakePlatform } from '@junction/tooling/fixtures/fake-platform.mjs';
import { startApiServer } from '../src/index.js';
import { freePorts } from './processes.js';

const KEY = 'reg-api-server-key-8080';
let home: string;
let platform: FakePlatform;

beforeAll(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-api-mgmt-'));
  platform = await startFakePlatform({ tls: 'none', keys: { [KEY]: { orgId: 'org-api' } } });
});

afterAll(async () => {
  await platform.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('api-server and the management platform', () => {
  it('registers from JUNCTION_MANAGEMENT_* and config.yaml, reports it in /health, never logs the key', async () => {
    mkdirSync(path.join(home, 'junction'), { recursive: true });
    writeFileSync(
      path.join(home, 'junction', 'config.yaml'),
      `management:\n  name: api-station\n  endpoint: 127.0.0.1:${platform.port}\n  use_tls: false\n`,
    );
    const [api, mcp] = await freePorts(2);
    let logs = '';
    const server = await startApiServer(
      {
        HOME: home,
        XDG_CONFIG_HOME: home,
        JUNCTION_DATABASE_URL: `file:${path.join(home, 'junction.db')}`,
        JUNCTION_API_PORT: String(api),
        JUNCTION_MCP_PORT: String(mcp),
        JUNCTION_DRAIN_SECONDS: '0',
        JUNCTION_MANAGEMENT_ENABLED: 'true',
        JUNCTION_MANAGEMENT_REGISTRATION_KEY: KEY,
      },
      {
        logStream: new Writable({
          write(chunk: Buffer, _enc, done): void {
            logs += chunk.toString();
            done();
          },
        }),
      },
    );
    try {
      const deadline = Date.now() + 10_000;
      let body: Record<string, unknown> = {};
      while (body.management !== 'connected' && Date.now() < deadline) {
        body = (await (await fetch(`http://127.0.0.1:${api}/health`)).json()) as Record<
          string,
          unknown
        >;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(body).toMatchObject({ status: 'healthy', management: 'connected' });
      expect(platform.stations().map((s) => s.name)).toContain('api-station');
      expect(logs).toContain('registered with the management platform');
      expect(logs).toContain('"org_id":"org-api"');
    } finally {
      await server.stop();
    }
    // The platform sees the station go.
    await platform.waitFor(() => !platform.stations().some((s) => s.name === 'api-station'), 3_000);
    expect(logs).not.toContain(KEY);
  });
});
