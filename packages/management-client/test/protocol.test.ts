// Junction's lighthouse.proto is wire-compatible with the lighthouse.v1 protocol: the bytes of
// the messages Junction sends carry the reference's field numbers, bytes the platform would send
// decode, and the method names are the platform's. A real gRPC stream on loopback carries them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import { lighthouseService, METHODS } from '../src/protocol.js';

const { Client, service } = lighthouseService();
const channel = service.ManagementChannel!;

/** A protobuf key: field number and wire type, as a varint. */
function key(field: number, wireType: number): number[] {
  let v = (field << 3) | wireType;
  const out: number[] = [];
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

function startsWith(buf: Buffer, bytes: number[]): boolean {
  return bytes.every((b, i) => buf[i] === b);
}

describe('lighthouse.v1 on the wire', () => {
  it('names the platform service and its methods', () => {
    expect(channel.path).toBe(METHODS.managementChannel);
    expect(service.Heartbeat!.path).toBe(METHODS.heartbeat);
    expect(service.SendRun!.path).toBe(METHODS.sendRun);
    expect(channel.requestStream && channel.responseStream).toBe(true);
  });

  it('encodes StationAuth as field 32 with the registration key as its field 1', () => {
    const bytes = channel.requestSerialize({
      station_auth: { registration_key: 'rk', name: 'st', version: '0.1.0' },
    });
    // Only the oneof case is set: key(32, length-delimited), length, then StationAuth's fields.
    expect(startsWith(bytes, key(32, 2))).toBe(true);
    const inner = bytes.subarray(key(32, 2).length + 1);
    expect(startsWith(inner, [...key(1, 2), 2, ...Buffer.from('rk')])).toBe(true);
    expect(inner.includes(Buffer.from([...key(2, 2), 2, ...Buffer.from('st')]))).toBe(true);
    expect(inner.includes(Buffer.from([...key(5, 2), 5, ...Buffer.from('0.1.0')]))).toBe(true);
  });

  it('decodes an AuthResult and a Disconnect built byte by byte from the field numbers', () => {
    const auth = Buffer.from([
      ...key(3, 0),
      1, // is_response = true
      ...key(33, 2),
      10, // auth_result, 10 bytes
      ...key(1, 0),
      1, // success
      ...key(3, 2),
      2,
      ...Buffer.from('s1'), // station_id
      ...key(5, 0),
      0xb0,
      0xea,
      0x01, // heartbeat_interval_ms = 30000
    ]);
    const decoded = channel.responseDeserialize(auth) as Record<string, unknown>;
    expect(decoded.message).toBe('auth_result');
    expect(decoded.is_response).toBe(true);
    expect(decoded.auth_result).toMatchObject({
      success: true,
      station_id: 's1',
      heartbeat_interval_ms: '30000',
    });

    const bye = Buffer.from([...key(34, 2), 4, ...key(2, 0), 3, ...key(3, 0), 0]);
    const d = channel.responseDeserialize(bye) as Record<string, unknown>;
    expect(d.message).toBe('disconnect');
    expect(d.disconnect).toMatchObject({
      code: 'DISCONNECT_REASON_KEY_REVOKED',
      should_reconnect: false,
    });
  });

  it('decodes the execute request the platform sends (field 13) with its run id', () => {
    const bytes = Buffer.from([
      ...key(1, 2),
      2,
      ...Buffer.from('r1'),
      ...key(13, 2),
      8,
      ...key(1, 2),
      1,
      0x61,
      ...key(6, 2),
      3,
      ...Buffer.from('run'),
    ]);
    const d = channel.responseDeserialize(bytes) as Record<string, unknown>;
    expect(d).toMatchObject({ request_id: 'r1', message: 'execute_agent_request' });
    expect(d.execute_agent_request).toMatchObject({ agent_id: 'a', run_id: 'run' });
  });
});

describe('a real ManagementChannel stream on loopback', () => {
  let server: grpc.Server;
  let port: number;
  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(service, {
      ManagementChannel: (call: grpc.ServerDuplexStream<Record<string, unknown>, unknown>) => {
        call.on('data', (m: Record<string, unknown>) => {
          if (m.message === 'station_auth') {
            const auth = m.station_auth as { name: string };
            call.write({
              is_response: true,
              success: true,
              auth_result: {
                success: true,
                station_id: 'st-1',
                name: auth.name,
                org_id: 'org-1',
                heartbeat_interval_ms: 30000,
              },
            });
            call.write({ request_id: 'req-1', list_agents_request: { environment: 'default' } });
          } else {
            call.end();
          }
        });
      },
    });
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
  });
  afterAll(() => server.forceShutdown());

  it('carries auth, the auth result, a platform request and the answer', async () => {
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const stream = (
      client as unknown as {
        ManagementChannel(): grpc.ClientDuplexStream<unknown, Record<string, unknown>>;
      }
    ).ManagementChannel();
    const seen: Array<Record<string, unknown>> = [];
    const done = new Promise<void>((resolve) => stream.on('end', () => resolve()));
    stream.on('data', (m: Record<string, unknown>) => {
      seen.push(m);
      if (m.message === 'list_agents_request')
        stream.write({
          request_id: m.request_id,
          is_response: true,
          success: true,
          list_agents_response: { agents: [], total_agents: 0 },
        });
    });
    stream.write({ station_auth: { registration_key: 'rk', name: 'junction-test' } });
    await done;
    client.close();
    expect(seen.map((m) => m.message)).toEqual(['auth_result', 'list_agents_request']);
    expect(seen[0]!.auth_result).toMatchObject({
      station_id: 'st-1',
      org_id: 'org-1',
      name: 'junction-test',
    });
  });
});
