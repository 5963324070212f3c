// docs/webhooks.md's "Signed webhooks" examples are real: the receiver it shows runs as its own
// Node process and verifies Junction's deliveries (refusing a forgery, spotting a replay), and the
// request it shows carries the signature of its body under the page's example secret.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { deliverWebhook } from '../src/deliver-webhook.js';
import { createWebhookSigner } from '../src/webhook-signature.js';
import { memoryLogger, openFixture } from './helpers.js';

const doc = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/webhooks.md'),
  'utf8',
);
const section = doc.slice(
  doc.indexOf('### Signed webhooks'),
  doc.indexOf('### `notification_logs`'),
);
const blockOf = (lang: string, startsWith: string): string => {
  const block = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))]
    .map((m) => m[1]!)
    .find((b) => b.startsWith(startsWith));
  if (block === undefined)
    throw new Error(`docs/webhooks.md has no ${lang} block starting ${startsWith}`);
  return block;
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-webhooks-doc-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** The receiver of the page, started on a free port; `next()` resolves with its next output line. */
async function startReceiver(secret: string): Promise<{ url: string; next(): Promise<string> }> {
  const file = path.join(dir, 'verify-junction-webhook.mjs');
  writeFileSync(file, blockOf('js', '// verify-junction-webhook.mjs'));
  const child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  child.on('exit', (code) => {
    for (const waiter of waiting.splice(0)) waiter(`receiver exited with code ${code}`);
  });
  const next = (): Promise<string> =>
    lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((r) => waiting.push(r));
  const listening = await next();
  const port = /^listening on (\d+)$/.exec(listening)?.[1];
  if (port === undefined) throw new Error(`the receiver did not start: ${listening}`);
  return { url: `http://127.0.0.1:${port}/alerts`, next };
}

describe('docs/webhooks.md, signed webhooks', () => {
  it('the config example loads with its signing secret', () => {
    const env = { XDG_CONFIG_HOME: dir };
    const paths = resolvePaths(env);
    writeFileSync(path.join(dir, 'config.yaml'), blockOf('yaml', '# config.yaml (or JUNCTION'));
    const config = loadConfig({
      env,
      paths: { ...paths, configFile: path.join(dir, 'config.yaml') },
    });
    expect(config.notifications.signing_secret).toMatch(/^whsec_/);
  });

  it('the request shown carries the signature of its body under the example secret', () => {
    const yaml = blockOf('yaml', '# config.yaml (or JUNCTION');
    const secret = /signing_secret: (\S+)/.exec(yaml)![1]!;
    const request = blockOf('text', 'POST /junction/alerts');
    const header = (name: string): string => new RegExp(`^${name}: (.+)$`, 'm').exec(request)![1]!;
    const body = request.trimEnd().split('\n').at(-1)!;
    expect(
      createWebhookSigner(secret).sign(
        header('webhook-id'),
        Number(header('webhook-timestamp')),
        body,
      ),
    ).toBe(header('webhook-signature'));
  });

  it('the receiver verifies a real delivery, refuses a forgery and spots a replay', async () => {
    const secret = `whsec_${Buffer.alloc(32, 0x33).toString('base64')}`;
    const receiver = await startReceiver(secret);
    const fx = await openFixture();
    try {
      const result = await deliverWebhook({
        store: fx.store,
        logger: memoryLogger().logger,
        url: receiver.url,
        eventType: 'agent.failed',
        payload: { event: 'agent.failed', run_id: 3 },
        signingSecret: secret,
        newId: () => 'msg_docExampleReplay01',
      });
      expect(result.delivered).toBe(true);
      expect(await receiver.next()).toBe('verified msg_docExampleReplay01 agent.failed');

      const forged = await deliverWebhook({
        store: fx.store,
        logger: memoryLogger().logger,
        url: receiver.url,
        eventType: 'agent.failed',
        payload: { event: 'agent.failed', run_id: 4 },
        signingSecret: `whsec_${Buffer.alloc(32, 0x44).toString('base64')}`,
        delaysMs: [0],
      });
      expect(forged).toMatchObject({ delivered: false, status: 401 });
      expect(await receiver.next()).toBe('refused: no valid signature');

      const unsigned = await fetch(receiver.url, { method: 'POST', body: '{"event":"x"}' });
      expect(unsigned.status).toBe(401);
      expect(await receiver.next()).toBe('refused: missing signature headers');

      await deliverWebhook({
        store: fx.store,
        logger: memoryLogger().logger,
        url: receiver.url,
        eventType: 'agent.failed',
        payload: { event: 'agent.failed', run_id: 3 },
        signingSecret: secret,
        newId: () => 'msg_docExampleReplay01',
      });
      expect(await receiver.next()).toBe('duplicate msg_docExampleReplay01');
    } finally {
      await fx.close();
    }
  });
});
