// A composed process with notifications.signing_secret signs the approval webhook (Standard
// Webhooks), and its log redacts the secret; before, receivers could not tell it from a forgery.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService, secretsOf } from '../src/index.js';

const KEY = Buffer.alloc(32, 0x42);
const SECRET = `whsec_${KEY.toString('base64')}`;
const home = mkdtempSync(path.join(os.tmpdir(), 'junction-signed-hook-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 that resolves with the first request it gets. */
async function receiver(): Promise<{ url: string; first: Promise<Received>; close(): void }> {
  let resolveFirst!: (r: Received) => void;
  const first = new Promise<Received>((resolve) => (resolveFirst = resolve));
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      resolveFirst({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/approvals`;
  return {
    url,
    first,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('notifications.signing_secret in a composed process', () => {
  it('signs approval.requested and keeps the secret out of the log', async () => {
    const sink = await receiver();
    const env = { XDG_CONFIG_HOME: home, JUNCTION_WEBHOOK_SIGNING_SECRET: SECRET };
    const paths = resolvePaths(env);
    mkdirSync(paths.configHome, { recursive: true });
    writeFileSync(paths.configFile, `notifications:\n  approval_webhook_url: ${sink.url}\n`);
    const config = loadConfig({ paths, env });
    expect(secretsOf(config, {})).toEqual([SECRET, KEY.toString('base64')]);

    const store = await openStore({ url: path.join(home, 'junction.db') });
    const environment = await store.environments.ensure('default');
    await store.workflows.upsert(environment.id, {
      workflowId: 'release',
      name: 'Release',
      definition: {
        id: 'release',
        start: 'gate',
        states: [{ id: 'gate', type: 'human_approval', message: 'Ship?', end: true }],
      },
    });
    let logText = '';
    const service = composeService({
      config,
      store,
      logger: createLogger({
        level: 'debug',
        format: 'json',
        env: {},
        secrets: secretsOf(config, env),
        stream: new Writable({
          write: (chunk: Buffer, _encoding, done): void => {
            logText += chunk.toString('utf8');
            done();
          },
        }),
      }),
      env,
      version: '0.0.0-test',
      executes: true,
    });
    try {
      await service.start();
      await service.workflows.start({ workflow_id: 'release', input: {}, source: 'api' });
      const { headers, body } = await sink.first;
      const id = String(headers['webhook-id']);
      const timestamp = String(headers['webhook-timestamp']);
      const expected = createHmac('sha256', KEY)
        .update(`${id}.${timestamp}.${body}`)
        .digest('base64');
      expect(headers['user-agent']).toBe('Svc-Webhook/1.0');
      expect(headers['webhook-signature']).toBe(`v1,${expected}`);
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
      expect(JSON.parse(body)).toMatchObject({
        event: 'approval.requested',
        workflow_id: 'release',
      });
      service.logger.info('a line that quotes the secret', { note: `secret is ${SECRET}` });
    } finally {
      await service.stop(0);
      sink.close();
      await store.close();
    }
    expect(logText).toContain('a line that quotes the secret');
    expect(logText).not.toContain(KEY.toString('base64'));
  });
});
