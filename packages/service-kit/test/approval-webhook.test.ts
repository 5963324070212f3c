// The approval webhook of a composed process: a workflow reaching a human_approval step POSTs the
// spec's §2.3 payload to notifications.approval_webhook_url with Svc-Webhook/1.0, three attempts
// at 0/1/4 s, each a notification_logs row; a delivery that fails leaves the approval pending.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService, type Composition } from '../src/index.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let home: string;
let store: Store;
let service: Composition;
let sink: http.Server;
const received: Received[] = [];

/** A sink that answers each request with the next behaviour: a status, or 'hang'. */
async function startSink(behaviours: Array<number | 'hang'>): Promise<string> {
  received.length = 0;
  sink = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => (text += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
      const next = behaviours[received.length - 1] ?? 200;
      if (next === 'hang') return; // never answers; the client's timeout ends the attempt
      res.writeHead(next).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(sink.address() as AddressInfo).port}/approvals`;
}

async function compose(sinkUrl: string): Promise<void> {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-approval-hook-'));
  const env = { XDG_CONFIG_HOME: home };
  const paths = resolvePaths(env);
  mkdirSync(paths.configHome, { recursive: true });
  writeFileSync(
    paths.configFile,
    [
      'notifications:',
      `  approval_webhook_url: ${sinkUrl}`,
      '  approval_webhook_timeout: 1',
      'webhook:',
      '  public_url: https://approvals.example.test',
      '',
    ].join('\n'),
  );
  store = await openStore({ url: path.join(home, 'junction.db') });
  const env0 = await store.environments.ensure('default');
  await store.workflows.upsert(env0.id, {
    workflowId: 'release',
    name: 'Release',
    definition: {
      id: 'release',
      start: 'gate',
      states: [
        {
          id: 'gate',
          type: 'human_approval',
          message: 'Release {{ version }}?',
          approvers: ['ops'],
          timeout_seconds: 900,
          end: true,
        },
      ],
    },
  });
  service = composeService({
    config: loadConfig({ paths, env }),
    store,
    logger: createLogger({
      level: 'error',
      format: 'json',
      env: {},
      stream: new Writable({ write: (_chunk, _encoding, done): void => done() }),
    }),
    env,
    version: '0.0.0-test',
    executes: true,
  });
  await service.start();
}

afterEach(async () => {
  await service?.stop(0);
  sink?.closeAllConnections();
  await new Promise((resolve) => sink?.close(resolve));
  await store?.close();
  rmSync(home, { recursive: true, force: true });
});

const until = eventually;

const logs = async () => store.notificationLogs.list({ eventType: 'webhook_sent' });

describe('the approval webhook', () => {
  it('POSTs §2.3 exactly, retries a sink that fails twice, and logs each attempt', async () => {
    await compose(await startSink([500, 503, 200]));
    const { run } = await service.workflows.start({
      workflow_id: 'release',
      input: { version: '2.1' },
      source: 'api',
    });
    await until('three attempts', async () => ((await logs()).length >= 3 ? true : undefined));
    expect(received).toHaveLength(3);
    const [first] = received;
    expect(first!.headers['user-agent']).toBe('Svc-Webhook/1.0');
    const body = first!.body;
    expect(Object.keys(body).sort()).toEqual(
      [
        'event',
        'approval_id',
        'workflow_id',
        'workflow_name',
        'run_id',
        'step_name',
        'message',
        'approvers',
        'timeout_seconds',
        'created_at',
        'approve_url',
        'reject_url',
        'view_url',
      ].sort(),
    );
    const approvalId = `appr-${run.id}-gate`;
    expect(body).toMatchObject({
      event: 'approval.requested',
      approval_id: approvalId,
      workflow_id: 'release',
      workflow_name: 'Release',
      run_id: String(run.id),
      step_name: 'gate',
      message: 'Release 2.1?',
      approvers: ['ops'],
      timeout_seconds: 900,
    });
    expect(new Date(String(body.created_at)).toISOString()).toBe(body.created_at);
    expect(body.view_url).toMatch(
      new RegExp(
        `^https://approvals\\.example\\.test/workflow-approvals/${approvalId}\\?token=[\\w-]+$`,
      ),
    );
    expect(body.approve_url).toMatch(
      new RegExp(`/workflow-approvals/${approvalId}/approve\\?token=`),
    );
    const attempts = (await logs()).sort((a, b) => a.id - b.id);
    expect(attempts.map((a) => a.responseStatus)).toEqual([500, 503, 200]);
    // The signed link decides this approval.
    const token = new URL(String(body.approve_url)).searchParams.get('token')!;
    expect(await service.workflows.verifyToken(approvalId, token)).toBe(true);
    expect(await service.workflows.verifyToken(`appr-${run.id + 1}-gate`, token)).toBe(false);
  }, 180_000);

  it('leaves the approval pending and logged when every attempt fails or hangs past its timeout', async () => {
    await compose(await startSink(['hang', 500, 'hang']));
    const { run } = await service.workflows.start({
      workflow_id: 'release',
      input: { version: '3' },
      source: 'api',
    });
    await until('three attempts', async () => ((await logs()).length >= 3 ? true : undefined));
    const attempts = (await logs()).sort((a, b) => a.id - b.id);
    expect(attempts.map((a) => a.responseStatus)).toEqual([null, 500, null]);
    expect(attempts[0]!.error).toBeTruthy();
    const approval = await store.approvals.get(`appr-${run.id}-gate`);
    expect(approval).toMatchObject({ status: 'pending' });
    expect((await store.workflowRuns.get(run.id))?.status).toBe('waiting_approval');
    // Still decidable: nothing was lost.
    await service.workflows.decide(`appr-${run.id}-gate`, {
      decision: 'approved',
      approver: 'ops',
      source: 'cli',
    });
    await until('the run to complete', async () =>
      (await store.workflowRuns.get(run.id))?.status === 'completed' ? true : undefined,
    );
  }, 180_000);
});
