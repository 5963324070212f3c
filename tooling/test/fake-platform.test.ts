// fake-platform.mjs against a real grpc-js client: TLS with the test CA (and the failures a wrong
// CA or a wrong host name must give), station auth on the ManagementChannel stream, platform
// requests and their replies, Heartbeat and SendRun, Disconnect and replacement, a restart on the
// same port, and the process mode.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import {
  MESSAGES,
  TLS_FILES,
  lighthouseClientConstructor,
  startFakePlatform,
} from '../fixtures/fake-platform.mjs';
import type { FakePlatform, ManagementMessage } from '../fixtures/fake-platform.mjs';

const GOOD_KEY = 'reg-good-key-0001';
const Client = lighthouseClientConstructor();
const scriptPath = new URL('../fixtures/fake-platform.mjs', import.meta.url).pathname;

interface LighthouseClient extends grpc.Client {
  ManagementChannel(): grpc.ClientDuplexStream<unknown, ManagementMessage>;
  Heartbeat(
    request: Record<string, unknown>,
    callback: (error: grpc.ServiceError | null, response?: Record<string, unknown>) => void,
  ): grpc.ClientUnaryCall;
  SendRun(
    request: Record<string, unknown>,
    callback: (error: grpc.ServiceError | null, response?: Record<string, unknown>) => void,
  ): grpc.ClientUnaryCall;
}

const clients: grpc.Client[] = [];
// Each client its own connections: grpc-js otherwise shares them between clients of one address,
// and a new client would inherit a stopped platform's reconnect backoff.
const OWN_POOL = { 'grpc.use_local_subchannel_pool': 1 };

/**
 * Trusts the test CA. The host name checked is `checkAs` (default 'localhost', which the test
 * certificate names besides IP 127.0.0.1); null checks the address's own host, 127.0.0.1.
 */
function tlsClient(
  address: string,
  ca = TLS_FILES.ca,
  checkAs: string | null = 'localhost',
): LighthouseClient {
  const options =
    checkAs === null ? OWN_POOL : { ...OWN_POOL, 'grpc.ssl_target_name_override': checkAs };
  const client = new Client(
    address,
    grpc.credentials.createSsl(readFileSync(ca)),
    options,
  ) as unknown as LighthouseClient;
  clients.push(client);
  return client;
}

function plainClient(address: string): LighthouseClient {
  const client = new Client(
    address,
    grpc.credentials.createInsecure(),
    OWN_POOL,
  ) as unknown as LighthouseClient;
  clients.push(client);
  return client;
}

/** A station's side of one ManagementChannel stream: what it received and how it ended. */
interface Station {
  stream: grpc.ClientDuplexStream<unknown, ManagementMessage>;
  received: ManagementMessage[];
  ended: Promise<grpc.StatusObject>;
}

function openStation(client: LighthouseClient, key: string, name: string): Station {
  const stream = client.ManagementChannel();
  const received: ManagementMessage[] = [];
  stream.on('data', (message: ManagementMessage) => received.push(message));
  const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
  stream.on('error', () => {}); // the status carries it
  stream.write({ request_id: `auth-${name}`, station_auth: { registration_key: key, name } });
  return { stream, received, ended };
}

function unary(
  client: LighthouseClient,
  method: 'Heartbeat' | 'SendRun',
  request: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    client[method](request, (error, response) => (error ? reject(error) : resolve(response!))),
  );
}

async function firstMessage(station: Station, platform: FakePlatform): Promise<ManagementMessage> {
  await platform.waitFor(() => station.received.length > 0, 3000);
  return station.received[0]!;
}

afterEach(() => {
  while (clients.length > 0) clients.pop()!.close();
});

describe('fake platform over TLS', () => {
  let platform: FakePlatform;
  beforeAll(async () => {
    platform = await startFakePlatform({ heartbeatIntervalMs: 30_000 });
  });
  afterAll(() => platform.stop());

  it('authenticates a station with a good key, trusting the test CA', async () => {
    const station = openStation(tlsClient(platform.address), GOOD_KEY, 'alpha');
    const first = await firstMessage(station, platform);
    expect(first).toMatchObject({
      request_id: 'auth-alpha',
      is_response: true,
      success: true,
      message: 'auth_result',
      auth_result: {
        success: true,
        org_id: 'org-test',
        name: 'alpha',
        heartbeat_interval_ms: '30000',
        replaced_existing: false,
      },
    });
    expect(first.auth_result!.station_id).toMatch(/^station-\d+$/);
    expect(platform.stations()).toEqual([
      expect.objectContaining({ name: 'alpha', key: GOOD_KEY, orgId: 'org-test' }),
    ]);
    const auth = platform.auths.at(-1)!;
    expect(auth).toMatchObject({ outcome: 'ok', tls: true, auth: { name: 'alpha' } });
    expect(auth.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    station.stream.end();
    await station.ended;
    await platform.waitFor(() => platform.stations().length === 0);
  });

  it('answers an unknown key with a failed AuthResult, then UNAUTHENTICATED', async () => {
    const station = openStation(tlsClient(platform.address), 'reg-bad-key', 'beta');
    const status = await station.ended;
    expect(status.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(status.details).toBe(MESSAGES.invalidKey);
    expect(station.received).toEqual([
      expect.objectContaining({
        is_response: true,
        success: false,
        auth_result: expect.objectContaining({ success: false, error: MESSAGES.invalidKey }),
      }),
    ]);
    expect(platform.auths.at(-1)!.outcome).toBe('invalid-key');
  });

  it('fails the handshake for a client that trusts another CA', async () => {
    const client = tlsClient(platform.address, TLS_FILES.otherCa);
    await expect(unary(client, 'Heartbeat', { registration_key: GOOD_KEY })).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
      details: expect.stringMatching(/unable to verify/),
    });
    expect(platform.heartbeats).toHaveLength(0);
  });

  it('fails host name verification for a certificate of another name', async () => {
    const wrong = await startFakePlatform({
      tls: {
        cert: readFileSync(TLS_FILES.wrongHostCert, 'utf8'),
        key: readFileSync(TLS_FILES.wrongHostKey, 'utf8'),
      },
    });
    try {
      // Same CA, so only the name check can fail: 127.0.0.1 and localhost are not wrong.example.
      const byIp = tlsClient(wrong.address, TLS_FILES.ca, null);
      await expect(unary(byIp, 'Heartbeat', { registration_key: GOOD_KEY })).rejects.toMatchObject({
        code: grpc.status.UNAVAILABLE,
        details: expect.stringMatching(/ERR_TLS_CERT_ALTNAME_INVALID.*IP: 127\.0\.0\.1/),
      });
      const byName = tlsClient(wrong.address, TLS_FILES.ca, 'localhost');
      await expect(unary(byName, 'Heartbeat', {})).rejects.toMatchObject({
        code: grpc.status.UNAVAILABLE,
        details: expect.stringMatching(/ERR_TLS_CERT_ALTNAME_INVALID.*localhost/),
      });
      // The same certificate is accepted under its own name.
      const right = tlsClient(wrong.address, TLS_FILES.ca, 'wrong.example');
      await expect(unary(right, 'Heartbeat', {})).resolves.toMatchObject({ success: false });
      expect(wrong.heartbeats).toHaveLength(1);
    } finally {
      await wrong.stop();
    }
  });
});

describe('fake platform driving a station (plain text)', () => {
  let platform: FakePlatform;
  beforeAll(async () => {
    platform = await startFakePlatform({
      tls: 'none',
      keys: { [GOOD_KEY]: { orgId: 'org-test' }, 'reg-other': { orgId: 'org-2' } },
      revokedKeys: ['reg-revoked'],
    });
  });
  afterAll(() => platform.stop());

  it('round-trips platform requests, several replies for an execute', async () => {
    const client = plainClient(platform.address);
    const station = openStation(client, GOOD_KEY, 'gamma');
    station.stream.on('data', (m: ManagementMessage) => {
      if (m.message === 'list_agents_request') {
        station.stream.write({
          request_id: m.request_id,
          is_response: true,
          success: true,
          list_agents_response: { agents: [{ id: 'a1', name: 'assistant' }], total_agents: 1 },
        });
      }
      if (m.message === 'execute_agent_request') {
        for (const status of ['EXECUTION_QUEUED', 'EXECUTION_RUNNING', 'EXECUTION_COMPLETED']) {
          station.stream.write({
            request_id: m.request_id,
            is_response: true,
            success: true,
            execute_agent_response: { execution_id: 'run-9', status },
          });
        }
      }
    });
    await platform.waitFor(() => platform.stations().length === 1);

    const reply = await platform.request('list_agents_request', { environment: 'default' });
    expect(reply).toMatchObject({
      is_response: true,
      message: 'list_agents_response',
      list_agents_response: { total_agents: 1, agents: [expect.objectContaining({ id: 'a1' })] },
    });
    const sent = station.received.find((m) => m.message === 'list_agents_request')!;
    expect(sent).toMatchObject({
      request_id: reply.request_id,
      registration_key: GOOD_KEY,
      is_response: false,
      list_agents_request: { environment: 'default' },
    });

    const execute = platform.request(
      'execute_agent_request',
      { agent_id: 'a1', task: 'hi', run_id: 'run-9' },
      { until: (r) => r.execute_agent_response?.status === 'EXECUTION_COMPLETED' },
    );
    await execute;
    expect(
      platform.replies(execute.requestId).map((r) => r.execute_agent_response!.status),
    ).toEqual(['EXECUTION_QUEUED', 'EXECUTION_RUNNING', 'EXECUTION_COMPLETED']);

    await expect(
      platform.request('get_environments_request', {}, { timeoutMs: 100 }),
    ).rejects.toThrow(/no reply to get_environments_request .* within 100 ms/);
    await expect(platform.request('list_tools_request', {}, { station: 'nobody' })).rejects.toThrow(
      /no connected station named "nobody"/,
    );

    station.stream.end();
    await station.ended;
  });

  it('answers Heartbeat and SendRun, unary and on the stream', async () => {
    const client = plainClient(platform.address);
    // No station of that key connected: the reference's "not registered" answer.
    await expect(unary(client, 'Heartbeat', { registration_key: GOOD_KEY })).resolves.toEqual({
      success: false,
      message: MESSAGES.notRegistered,
    });
    const station = openStation(client, GOOD_KEY, 'delta');
    await platform.waitFor(() => platform.stations().length === 1);
    const heartbeat = await unary(client, 'Heartbeat', {
      registration_key: GOOD_KEY,
      status: 'SYSTEM_STATUS_HEALTHY',
      metrics: { uptime_seconds: 12, active_runs: 1 },
    });
    expect(heartbeat).toEqual({ success: true, message: '' });
    expect(platform.heartbeats.at(-1)!.request).toMatchObject({
      registration_key: GOOD_KEY,
      status: 'SYSTEM_STATUS_HEALTHY',
      metrics: { uptime_seconds: '12', active_runs: 1 },
    });
    await expect(unary(client, 'Heartbeat', { registration_key: 'reg-bad' })).resolves.toEqual({
      success: false,
      message: MESSAGES.notRegistered,
    });

    const runData = {
      run_id: 'r-1',
      agent_name: 'assistant',
      status: 'LIGHTHOUSE_RUN_STATUS_COMPLETED',
    };
    const sent = await unary(client, 'SendRun', { registration_key: GOOD_KEY, run_data: runData });
    expect(sent).toMatchObject({
      success: true,
      run_id: expect.stringMatching(/^platform-run-\d+$/),
    });
    await expect(unary(client, 'SendRun', { registration_key: 'reg-bad' })).resolves.toMatchObject({
      success: false,
      message: MESSAGES.invalidKey,
    });

    station.stream.write({
      request_id: 'sendrun-1',
      registration_key: GOOD_KEY,
      send_run_request: { registration_key: GOOD_KEY, run_data: { run_id: 'r-2' } },
    });
    await platform.waitFor(() => station.received.some((m) => m.request_id === 'sendrun-1'));
    expect(station.received.find((m) => m.request_id === 'sendrun-1')).toMatchObject({
      is_response: true,
      send_run_response: { success: true, run_id: expect.stringMatching(/^platform-run-\d+$/) },
    });
    expect(platform.runReports.map((r) => [r.via, r.accepted, r.request.run_data?.run_id])).toEqual(
      [
        ['unary', true, 'r-1'],
        ['unary', false, undefined],
        ['stream', true, 'r-2'],
      ],
    );
    expect(platform.runReports.at(-1)!.requestId).toBe('sendrun-1');
    expect(platform.responses.at(-1)).toMatchObject({ message: 'send_run_request' });

    station.stream.end();
    await station.ended;
  });

  it('sends a Disconnect and ends the stream; replaces a station of the same name', async () => {
    const client = plainClient(platform.address);
    const first = openStation(client, GOOD_KEY, 'epsilon');
    await platform.waitFor(() => platform.stations().length === 1);
    const firstId = platform.stations()[0]!.stationId;

    // Same key, same name: the first one is told it was replaced, and its stream ends.
    const second = openStation(client, GOOD_KEY, 'epsilon');
    const status = await first.ended;
    expect(status.code).toBe(grpc.status.OK);
    expect(first.received.at(-1)).toMatchObject({
      is_response: true,
      disconnect: {
        code: 'DISCONNECT_REASON_REPLACED',
        should_reconnect: false,
        reason: MESSAGES.replaced,
      },
    });
    const secondAuth = await firstMessage(second, platform);
    expect(secondAuth.auth_result).toMatchObject({ replaced_existing: true, station_id: firstId });
    // Another name with the same key lives beside it.
    const other = openStation(client, GOOD_KEY, 'zeta');
    await platform.waitFor(() => platform.stations().length === 2);

    await platform.disconnect(
      {
        code: 'DISCONNECT_REASON_SHUTDOWN',
        reason: 'maintenance',
        should_reconnect: true,
        reconnect_delay_ms: 250,
      },
      { station: 'epsilon' },
    );
    expect((await second.ended).code).toBe(grpc.status.OK);
    expect(second.received.at(-1)!.disconnect).toEqual({
      code: 'DISCONNECT_REASON_SHUTDOWN',
      reason: 'maintenance',
      should_reconnect: true,
      reconnect_delay_ms: '250',
    });
    expect(platform.stations().map((s) => s.name)).toEqual(['zeta']);
    other.stream.end();
    await other.ended;
  });

  it('disconnects a revoked key with KEY_REVOKED', async () => {
    const station = openStation(plainClient(platform.address), 'reg-revoked', 'eta');
    expect((await station.ended).code).toBe(grpc.status.OK);
    expect(station.received).toEqual([
      expect.objectContaining({
        disconnect: expect.objectContaining({
          code: 'DISCONNECT_REASON_KEY_REVOKED',
          should_reconnect: false,
        }),
      }),
    ]);
    expect(platform.auths.at(-1)!.outcome).toBe('revoked');
  });

  it('refuses a stream whose first message is not station_auth', async () => {
    const stream = plainClient(platform.address).ManagementChannel();
    stream.on('error', () => {});
    const ended = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
    stream.write({ request_id: 'x', list_agents_response: { agents: [] } });
    const status = await ended;
    expect(status).toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
      details: MESSAGES.authFirst,
    });
  });
});

describe('fake platform down and up again', () => {
  const started: FakePlatform[] = [];
  afterAll(async () => {
    for (const platform of started) await platform.stop();
  });

  it('stops (streams end UNAVAILABLE) and listens on the same port again', async () => {
    const platform = await startFakePlatform({ tls: 'none' });
    started.push(platform);
    const port = platform.port;
    const client = plainClient(platform.address);
    const station = openStation(client, GOOD_KEY, 'theta');
    await platform.waitFor(() => platform.stations().length === 1);
    await platform.stop();
    expect(await station.ended).toMatchObject({
      code: grpc.status.UNAVAILABLE,
      details: MESSAGES.shutdown,
    });
    await expect(unary(client, 'Heartbeat', {})).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
    });

    // A new platform on the same port.
    const again = await startFakePlatform({ tls: 'none', port });
    started.push(again);
    expect(again.port).toBe(port);
    await expect(unary(plainClient(again.address), 'Heartbeat', {})).resolves.toMatchObject({
      success: false,
    });
    await again.stop();

    // restart(): the same object, same port, records kept.
    await platform.restart();
    expect(platform.port).toBe(port);
    const back = openStation(plainClient(platform.address), GOOD_KEY, 'theta');
    await platform.waitFor(() => platform.stations().length === 1);
    expect(platform.connections).toBe(2);
    expect(platform.auths).toHaveLength(2);
    back.stream.end();
    await back.ended;
    await platform.stop();
  });
});

describe('fake platform as a process', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  it('prints {"port": n}, serves TLS with its keys, and exits 0 on SIGTERM', async () => {
    child = spawn(
      process.execPath,
      [scriptPath, '--port', '0', '--key', 'reg-cli:org-cli', '--heartbeat-ms', '5000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const proc = child;
    let stderr = '';
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      proc.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const { port } = JSON.parse(line) as { port: number };
    expect(port).toBeGreaterThan(0);

    const station = openStation(tlsClient(`127.0.0.1:${port}`), 'reg-cli', 'iota');
    await new Promise<void>((resolve) => station.stream.once('data', () => resolve()));
    expect(station.received[0]!.auth_result).toMatchObject({
      success: true,
      org_id: 'org-cli',
      heartbeat_interval_ms: '5000',
    });
    // Events go to stderr as JSON lines.
    for (let i = 0; i < 100 && !stderr.includes('"event":"auth"'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(stderr).toContain('"event":"auth"');

    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect((await station.ended).code).toBe(grpc.status.UNAVAILABLE);
  });

  it('refuses unknown flags with exit code 2', async () => {
    child = spawn(process.execPath, [scriptPath, '--nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const proc = child;
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    expect(code).toBe(2);
  });
});
