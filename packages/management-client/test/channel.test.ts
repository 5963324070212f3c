// The management channel against the fake platform (a real gRPC server with TLS from a test CA):
// registration, refusals told apart, reconnects with backoff, Disconnect hints, heartbeats that
// carry the key, the platform's requests answered from a real store — and the key in no log.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  startFakePlatform,
  TLS_FILES,
  type FakePlatform,
} from '@junction/tooling/fixtures/fake-platform.mjs';
import { createStation, ManagementChannel, readStatus } from '../src/index.js';
import { GOOD_KEY, harness, until, type Harness } from './harness.js';

let h: Harness;
let platform: FakePlatform | undefined;
let channel: ManagementChannel | undefined;

const noRuns = {
  submit: () => Promise.reject(new Error('no runs in this test')),
  waitFor: () => Promise.reject(new Error('no runs in this test')),
  cancel: () => Promise.reject(new Error('no runs in this test')),
  follow: () => Promise.reject(new Error('no runs in this test')),
};

function open(
  settings: ReturnType<Harness['settings']>,
  extra: Partial<ConstructorParameters<typeof ManagementChannel>[0]> = {},
): ManagementChannel {
  channel = new ManagementChannel({
    settings,
    station: createStation({
      store: h.store,
      runs: noRuns,
      logger: h.logger,
      redactor: {
        secrets: [],
        text: (t) => t.replaceAll('tok-secret-value-123456', '[REDACTED]'),
        value: (v) => v,
      },
    }),
    logger: h.logger,
    version: '9.9.9-test',
    backoff: { initialMs: 100, maxMs: 800 },
    ...extra,
  });
  channel.start();
  return channel;
}

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await channel?.stop();
  channel = undefined;
  await platform?.stop();
  platform = undefined;
  await h.close();
});

describe('registration', () => {
  it('registers over TLS with StationAuth, logs the station and organization, and never the key', async () => {
    platform = await startFakePlatform({
      keys: { [GOOD_KEY]: { orgId: 'org-42', stationId: 'st-7' } },
    });
    const c = open(h.settings(platform.address));
    await until(() => c.status().state === 'connected', 'registration');
    expect(c.status()).toMatchObject({
      stationId: 'st-7',
      orgId: 'org-42',
      stationName: 'station-a',
    });
    const [auth] = platform.auths;
    expect(auth!.tls).toBe(true);
    expect(auth!.requestId).toMatch(/^auth_\d+$/);
    expect(auth!.auth).toMatchObject({
      registration_key: GOOD_KEY,
      name: 'station-a',
      tags: ['test'],
      version: '9.9.9-test',
      os: process.platform,
      arch: process.arch,
      environment: 'default',
    });
    expect(auth!.auth!.agents.map((a) => a.name).sort()).toEqual(['helper', 'reporter']);
    expect(auth!.auth!.agents.find((a) => a.name === 'helper')).toMatchObject({
      assigned_tools: ['read_file'],
      environment_name: 'default',
      model_name: 'gpt-4o-mini',
    });
    expect(auth!.auth!.tools).toEqual([
      expect.objectContaining({ name: 'read_file', mcp_server: 'files' }),
    ]);
    // A secret in a server's arguments does not leave the station.
    expect(auth!.auth!.mcp_servers[0]).toMatchObject({
      name: 'files',
      args: ['server.mjs', '--token', '[REDACTED]'],
      tool_count: 1,
    });
    expect(h.logs()).toContain(
      `registered with the management platform ${platform.address} as station st-7 in organization org-42`,
    );
    expect(h.logs()).not.toContain(GOOD_KEY);
    // The status file `junction auth status` reads.
    expect(readStatus(h.dir)).toMatchObject({
      state: 'connected',
      station_id: 'st-7',
      org_id: 'org-42',
      station_name: 'station-a',
      pid: process.pid,
    });
    expect(readFileSync(`${h.dir}/management-status.json`, 'utf8')).not.toContain(GOOD_KEY);
  });

  it('tells a refused key apart, says what to do, and does not retry', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address, { key: 'reg-wrong-key-9999' }));
    await until(() => c.status().state === 'error', 'the refusal');
    expect(c.status().error).toMatch(
      new RegExp(
        `^failed to connect to ${platform.address}: the platform refused the registration key \\(invalid registration key\\)\\. Check management\\.registration_key`,
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(platform.connections).toBe(1);
    expect(h.logs()).toContain('Not reconnecting');
    expect(h.logs()).not.toContain('reg-wrong-key-9999');
  });

  it('says when there is no key at all', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address, { key: undefined, keySource: undefined }));
    await until(() => c.status().state === 'error', 'the refusal');
    expect(c.status().error).toContain('no registration key: set management.registration_key');
    expect(platform.connections).toBe(0);
  });

  it('tells a TLS failure apart: a CA the station does not trust', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address, { ca: readFileSync(TLS_FILES.otherCa) }));
    await until(() => c.status().state === 'error', 'the TLS failure');
    expect(c.status().error).toMatch(
      new RegExp(`^failed to connect to ${platform.address}: TLS: `),
    );
    expect(c.status().error).toContain('management.ca_file');
  });

  it('tells a TLS failure apart: a certificate for another host name', async () => {
    platform = await startFakePlatform({
      tls: {
        cert: readFileSync(TLS_FILES.wrongHostCert, 'utf8'),
        key: readFileSync(TLS_FILES.wrongHostKey, 'utf8'),
      },
    });
    const c = open(h.settings(`localhost:${platform.port}`));
    await until(() => c.status().state === 'error', 'the TLS failure');
    expect(c.status().error).toMatch(/^failed to connect to localhost:\d+: TLS: /);
  });

  it('tells a network failure apart, keeps trying with growing delays, and registers once the platform is up', async () => {
    const probe = await startFakePlatform();
    const port = probe.port;
    await probe.stop();
    const c = open(h.settings(`127.0.0.1:${port}`));
    await until(() => c.status().state === 'error', 'the first failure');
    expect(c.status().error).toMatch(
      new RegExp(`^failed to connect to 127\\.0\\.0\\.1:${port}: network: connection refused`),
    );
    // It keeps trying: wait for the third failure it logs, not for a time.
    await until(
      () =>
        h
          .logs()
          .split('\n')
          .filter((l) => l.includes('failed to connect to')).length >= 3,
      'three failed attempts',
    );
    platform = await startFakePlatform({ port });
    await until(() => c.status().state === 'connected', 'registration after the outage');
    expect(platform.auths).toHaveLength(1);
  });
});

describe('Disconnect', () => {
  it('does not reconnect when the key is revoked, and says why', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address));
    await until(() => c.status().state === 'connected', 'registration');
    await platform.disconnect({ code: 'DISCONNECT_REASON_KEY_REVOKED', reason: 'key rotated' });
    await until(() => c.status().state === 'error', 'the revocation');
    expect(c.status().error).toContain(
      'key rotated (DISCONNECT_REASON_KEY_REVOKED); not reconnecting',
    );
    expect(c.status().error).toContain('get a new one from the platform dashboard');
    await new Promise((r) => setTimeout(r, 400));
    expect(platform.connections).toBe(1);
  });

  it('does not reconnect when replaced by a station of the same name', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address));
    await until(() => c.status().state === 'connected', 'registration');
    const other = new ManagementChannel({
      settings: h.settings(platform.address, { configHome: `${h.dir}/other` }),
      station: {
        describe: async () => ({ agents: [], tools: [], mcp_servers: [] }),
        handle: async () => undefined,
      },
      logger: h.logger,
      version: '9.9.9-test',
    });
    other.start();
    try {
      await until(() => c.status().state === 'error', 'the replacement');
      expect(c.status().error).toContain('DISCONNECT_REASON_REPLACED');
      expect(c.status().error).toContain('give each station its own management.name');
      await new Promise((r) => setTimeout(r, 400));
      expect(platform.connections).toBe(2);
    } finally {
      await other.stop();
    }
  });

  it('reconnects after the delay the platform asks for', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address), { backoff: { initialMs: 10, maxMs: 10 } });
    await until(() => c.status().state === 'connected', 'registration');
    const before = Date.now();
    await platform.disconnect({
      code: 'DISCONNECT_REASON_SHUTDOWN',
      reason: 'maintenance',
      should_reconnect: true,
      reconnect_delay_ms: 600,
    });
    await until(() => platform!.auths.length === 2, 'the second registration');
    expect(Date.now() - before).toBeGreaterThanOrEqual(550);
    await until(() => c.status().state === 'connected', 'connected again');
    expect(h.logs()).toContain('maintenance (DISCONNECT_REASON_SHUTDOWN); reconnecting in 600 ms');
  });

  it('reconnects with backoff when the platform goes away and comes back', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address));
    await until(() => c.status().state === 'connected', 'registration');
    await platform.stop();
    await until(() => c.status().state !== 'connected', 'the loss');
    await new Promise((r) => setTimeout(r, 300));
    await platform.restart();
    await until(
      () => c.status().state === 'connected' && platform!.auths.length === 2,
      'reconnection',
    );
  });
});

describe('heartbeats and requests', () => {
  it('beats at the interval the platform gives, each beat carrying the key', async () => {
    platform = await startFakePlatform({ heartbeatIntervalMs: 150 });
    const opened = Date.now();
    const c = open(h.settings(platform.address));
    await until(() => c.status().state === 'connected', 'registration');
    await until(() => platform!.heartbeats.length >= 3, 'three heartbeats');
    for (const beat of platform.heartbeats) {
      expect(beat.request).toMatchObject({
        registration_key: GOOD_KEY,
        environment: 'default',
        status: 'SYSTEM_STATUS_HEALTHY',
      });
    }
    // Never faster than the interval (a loaded machine may deliver two late beats close
    // together, so the gaps between arrivals prove nothing; the count over the time does).
    const beats = platform.heartbeats.length;
    expect(beats).toBeLessThanOrEqual(Math.floor((Date.now() - opened) / 150) + 1);
  });

  it('answers list agents, list tools, environments and agent details by request_id', async () => {
    platform = await startFakePlatform();
    const c = open(h.settings(platform.address));
    await until(() => c.status().state === 'connected', 'registration');
    const agents = await platform.request('list_agents_request', { environment: 'default' });
    expect(agents).toMatchObject({ is_response: true, success: true, registration_key: GOOD_KEY });
    expect(agents.request_id).toMatch(/^platform-req-/);
    expect((agents.list_agents_response as { total_agents: number }).total_agents).toBe(2);
    const tools = await platform.request('list_tools_request', { environment: 'default' });
    expect(tools.list_tools_response).toMatchObject({
      total_tools: 1,
      mcp_servers: ['files'],
      tools: [expect.objectContaining({ name: 'read_file' })],
    });
    const envs = await platform.request('get_environments_request', {});
    expect(envs.get_environments_response).toMatchObject({
      environments: [
        expect.objectContaining({
          name: 'default',
          agent_count: 2,
          tool_count: 1,
          is_default: true,
        }),
      ],
    });
    const details = await platform.request('get_agent_details_request', {
      agent_id: 'helper',
      environment: 'default',
    });
    expect(details.get_agent_details_response).toMatchObject({
      agent: expect.objectContaining({ name: 'helper', tools: ['read_file'], max_steps: 5 }),
    });
    const missing = await platform.request('get_agent_details_request', { agent_id: 'nobody' });
    expect(missing).toMatchObject({
      success: false,
      error: expect.objectContaining({ code: 'AGENT_NOT_FOUND' }),
    });
    const badEnv = await platform.request('list_agents_request', { environment: 'nowhere' });
    expect(badEnv).toMatchObject({
      success: false,
      error: expect.objectContaining({ code: 'ENVIRONMENT_NOT_FOUND' }),
    });
  });
});
