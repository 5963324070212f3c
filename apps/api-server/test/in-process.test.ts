// startApiServer in-process: what it binds, what a half-failed start leaves behind (nothing),
// and which Host headers MCP over HTTP accepts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ServiceError as ApiServerError } from '@junction/service-kit';
import { startApiServer } from '../src/index.js';
import { freePorts, occupyPort } from './processes.js';

let home: string;
let logs: string[];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done): void {
    logs.push(chunk.toString());
    done();
  },
});

beforeAll(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-api-inproc-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function envWithPorts(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const [api, mcp] = await freePorts(2);
  logs = [];
  return {
    HOME: home,
    XDG_CONFIG_HOME: home,
    JUNCTION_DATABASE_URL: `file:${path.join(home, 'junction.db')}`,
    JUNCTION_API_PORT: String(api),
    JUNCTION_MCP_PORT: String(mcp),
    JUNCTION_DRAIN_SECONDS: '0',
    ...extra,
  };
}

/** POSTs an MCP initialize with the given Host header; resolves with the HTTP status. */
function initializeWithHost(port: number, host: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '1.0.0' },
    },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('startApiServer', () => {
  it('binds REST and MCP on the configured ports, serves /health, and stops', async () => {
    const env = await envWithPorts();
    const server = await startApiServer(env, { logStream });
    expect(server.host).toBe('127.0.0.1');
    expect(server.ports).toEqual({
      api: Number(env.JUNCTION_API_PORT),
      mcp: Number(env.JUNCTION_MCP_PORT),
    });
    const health = await fetch(`http://127.0.0.1:${server.ports.api}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'healthy', scheduler: 'running' });
    expect(await server.stop()).toEqual({ requeued: 0 });
    expect(await server.stop()).toEqual({ requeued: 0 }); // idempotent
    await expect(fetch(`http://127.0.0.1:${server.ports.api}/health`)).rejects.toThrow();
    const records = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => r.msg)).toEqual(
      expect.arrayContaining(['serving', 'shutting down', 'stopped']),
    );
    expect(records.every((r) => r.service === 'junction-api-server')).toBe(true);
  });

  it('releases the REST port when the MCP port is in use: nothing is left running', async () => {
    const busy = await occupyPort();
    try {
      const env = await envWithPorts({ JUNCTION_MCP_PORT: String(busy.port) });
      const failure = await startApiServer(env, { logStream }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ApiServerError);
      expect(failure).toMatchObject({
        code: 'PORT_IN_USE',
        details: { port: busy.port, variable: 'JUNCTION_MCP_PORT' },
      });
      // The REST port it had bound is free again.
      const again = http.createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(Number(env.JUNCTION_API_PORT), '127.0.0.1', () => resolve());
      });
      await new Promise((resolve) => again.close(resolve));
    } finally {
      await busy.close();
    }
  });

  it('MCP over HTTP accepts the Host names of JUNCTION_MCP_ALLOWED_HOSTS, and refuses others', async () => {
    const env = await envWithPorts();
    const port = Number(env.JUNCTION_MCP_PORT);
    env.JUNCTION_MCP_ALLOWED_HOSTS = `junction-api:${port}, mcp.example.com`;
    const server = await startApiServer(env, { logStream });
    try {
      expect(await initializeWithHost(port, `127.0.0.1:${port}`)).toBe(200);
      expect(await initializeWithHost(port, `junction-api:${port}`)).toBe(200);
      expect(await initializeWithHost(port, 'mcp.example.com')).toBe(200);
      expect(await initializeWithHost(port, `evil.example:${port}`)).toBe(403);
    } finally {
      await server.stop();
    }
  });
});
