import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  SPAN_AGENT_EXECUTE,
  SPAN_LLM_GENERATE,
  agentExecuteAttributes,
  createLogger,
  createTracing,
  withSpan,
} from '../src/index.js';
import type { Tracing } from '../src/index.js';
import { captureStream } from './capture.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

// A real OTLP/HTTP receiver: records every request and answers like a collector.
async function startReceiver(tls?: {
  key: Buffer;
  cert: Buffer;
}): Promise<{ url: string; requests: Received[]; close: () => Promise<void> }> {
  const requests: Received[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  };
  const server = tls === undefined ? http.createServer(handler) : https.createServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function spanNames(body: Buffer): string[] {
  const payload = JSON.parse(body.toString('utf8')) as {
    resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
  };
  return payload.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => span.name)),
  );
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track(tracing: Tracing): Tracing {
  cleanups.push(() => tracing.shutdown());
  return tracing;
}

describe('OTLP/HTTP export to a real receiver', () => {
  it('POSTs the spans to /v1/traces with the configured headers, only when flushed', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const tracing = track(
      createTracing({
        endpoint: receiver.url,
        headers: { Authorization: 'Bearer otlp-test-token', 'X-Scope-OrgID': 'tenant-1' },
        serviceName: 'junction-export-test',
        // Long delay: nothing leaves before forceFlush, which shows the export is batched and asynchronous.
        batch: { scheduledDelayMillis: 60_000 },
      }),
    );
    expect(tracing.exporter).toBe('otlp');
    expect(tracing.url).toBe(`${receiver.url}/v1/traces`);

    await withSpan(
      tracing.tracer,
      SPAN_AGENT_EXECUTE,
      agentExecuteAttributes({ agentId: 1, agentName: 'ops' }),
      () => withSpan(tracing.tracer, SPAN_LLM_GENERATE, {}, () => undefined),
    );
    expect(receiver.requests).toHaveLength(0);

    await tracing.forceFlush();
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/traces');
    expect(request?.headers.authorization).toBe('Bearer otlp-test-token');
    expect(request?.headers['x-scope-orgid']).toBe('tenant-1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body.length).toBeGreaterThan(0);
    expect(spanNames(request?.body ?? Buffer.alloc(0)).sort()).toEqual([
      SPAN_AGENT_EXECUTE,
      SPAN_LLM_GENERATE,
    ]);
    expect(request?.body.toString('utf8')).toContain('junction-export-test');
  });

  it('keeps an endpoint that already ends in /v1/traces', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const tracing = track(createTracing({ endpoint: `${receiver.url}/v1/traces/` }));
    await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => undefined);
    await tracing.forceFlush();
    expect(receiver.requests.map((request) => request.url)).toEqual(['/v1/traces']);
  });

  it('logs one warning, without the header values, when the receiver is down', async () => {
    const receiver = await startReceiver();
    await receiver.close();
    const out = captureStream();
    const logger = createLogger({ stream: out.stream, env: {} });
    const tracing = track(
      createTracing({
        endpoint: receiver.url,
        headers: { Authorization: 'Bearer do-not-log-me' },
        logger,
      }),
    );
    for (let i = 0; i < 2; i += 1) {
      await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => undefined);
      await tracing.forceFlush();
    }
    const warnings = out.json().filter((record) => record.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      msg: expect.stringContaining('trace export failed'),
      url: `${receiver.url}/v1/traces`,
    });
    expect(out.lines().join('\n')).not.toContain('do-not-log-me');
  });
});

const hasOpenssl = ((): boolean => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

(hasOpenssl ? describe : describe.skip)(
  'OTLP/HTTPS with a private CA (OTEL_EXPORTER_OTLP_CERTIFICATE)',
  () => {
    let dir = '';
    let tls: { key: Buffer; cert: Buffer };
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-otlp-tls-'));
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      tls = {
        key: fs.readFileSync(path.join(dir, 'key.pem')),
        cert: fs.readFileSync(path.join(dir, 'cert.pem')),
      };
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('trusts the receiver when certificatePath names its CA', async () => {
      const receiver = await startReceiver(tls);
      cleanups.push(receiver.close);
      const tracing = track(
        createTracing({ endpoint: receiver.url, certificatePath: path.join(dir, 'cert.pem') }),
      );
      await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => undefined);
      await tracing.forceFlush();
      expect(receiver.requests.map((request) => [request.method, request.url])).toEqual([
        ['POST', '/v1/traces'],
      ]);
    });

    it('refuses the self-signed receiver without the certificate', async () => {
      const receiver = await startReceiver(tls);
      cleanups.push(receiver.close);
      const out = captureStream();
      const tracing = track(
        createTracing({
          endpoint: receiver.url,
          logger: createLogger({ stream: out.stream, env: {} }),
        }),
      );
      await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => undefined);
      await tracing.forceFlush();
      expect(receiver.requests).toHaveLength(0);
      expect(out.json().map((record) => record.level)).toEqual(['warn']);
    });

    it('fails with TELEMETRY_CERTIFICATE_UNREADABLE for a missing file', () => {
      expect(() =>
        createTracing({
          endpoint: 'https://127.0.0.1:1',
          certificatePath: path.join(dir, 'missing.pem'),
        }),
      ).toThrow(expect.objectContaining({ code: 'TELEMETRY_CERTIFICATE_UNREADABLE' }));
    });
  },
);
