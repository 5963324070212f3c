// Approval links named port 8587 when serve listened on another webhook port (--webhook-port):
// in the CLI's lists, in `workflow run --wait`, and in serve's own REST answers (issue 31).
// Every link comes from one rule: webhook.public_url when set, else the port the routes listen
// on (a running serve of the workspace leaves a note of it), else webhook.port.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { follow } from './workflow-follow.js';

const GATE = `id: gate
start: ask
states:
  - {id: ask, type: human_approval, message: "Ship it?", transition: ship}
  - {id: ship, type: inject, data: {shipped: true}, end: true}
`;

let env: NodeJS.ProcessEnv;
let serve: ServeProcess | undefined;
let waiting: ReturnType<typeof follow> | undefined;

beforeAll(async () => {
  env = { XDG_CONFIG_HOME: tempConfigHome() };
  expect((await runCliAsync(['init'], env)).status).toBe(0);
  const dir = path.join(String(env.XDG_CONFIG_HOME), 'junction/environments/default/workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'gate.workflow.yaml'), GATE);
  expect((await runCliAsync(['sync', 'default'], env)).status).toBe(0);
}, 120_000);

afterAll(async () => {
  if (waiting && waiting.child.exitCode === null) {
    waiting.child.kill('SIGINT');
    await waiting.exit;
  }
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exit;
  }
  rmSync(String(env.XDG_CONFIG_HOME), { recursive: true, force: true });
});

const note = (): string => path.join(String(env.XDG_CONFIG_HOME), 'junction/webhook-address.json');

describe('approval links', () => {
  it('name the webhook port serve listens on, from every process, and webhook.port once it stops', async () => {
    serve = await startServe(env);
    await serve.ready;
    const port = serve.ports.webhook;
    expect(port).not.toBe(8587);
    const ours = new RegExp(
      `^http://127\\.0\\.0\\.1:${port}/workflow-approvals/appr-\\S+\\?token=`,
    );

    // A run waiting here, advanced by this process while serve runs elsewhere.
    waiting = follow(['workflow', 'run', 'gate', '--wait'], env);
    const out = await waiting.printed(/or open \S+/);
    expect(/or open (\S+)/.exec(out)![1]).toMatch(ours);
    const approvalId = /waiting for approval (appr-\S+):/.exec(out)![1]!;

    // The CLI's list, and serve's REST answer.
    const listed = JSON.parse(
      (await runCliAsync(['workflow', 'approvals', '--json'], env)).stdout,
    ) as Array<{
      approval_id: string;
      view_url: string;
      approve_url: string;
    }>;
    const row = listed.find((a) => a.approval_id === approvalId);
    expect(row?.view_url).toMatch(ours);
    expect(row?.approve_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
    const rest = (await (
      await fetch(`http://127.0.0.1:${serve.ports.api}/api/v1/workflow-approvals`)
    ).json()) as
      | { approvals?: Array<{ approval_id: string; view_url: string }> }
      | Array<{ approval_id: string; view_url: string }>;
    const restRows = Array.isArray(rest) ? rest : (rest.approvals ?? []);
    expect(restRows.find((a) => a.approval_id === approvalId)?.view_url).toMatch(ours);

    // The link works: serve answers it.
    const page = await fetch(row!.view_url, { headers: { Accept: 'application/json' } });
    expect(page.status).toBe(200);

    // Once serve has stopped, links name webhook.port again (its note is gone).
    serve.child.kill('SIGTERM');
    expect(await serve.exit).toBe(0);
    expect(existsSync(note())).toBe(false);
    const after = JSON.parse(
      (await runCliAsync(['workflow', 'approvals', '--json'], env)).stdout,
    ) as Array<{
      approval_id: string;
      view_url: string;
    }>;
    expect(after.find((a) => a.approval_id === approvalId)?.view_url).toMatch(
      /^http:\/\/127\.0\.0\.1:8587\/workflow-approvals\//,
    );
    // webhook.public_url, when set, is what every link names.
    const config = path.join(String(env.XDG_CONFIG_HOME), 'junction/config.yaml');
    writeFileSync(config, 'webhook:\n  public_url: https://junction.example.com/hooks\n', {
      flag: 'a',
    });
    const configured = await runCliAsync(['workflow', 'approvals', '--json'], env);
    expect((JSON.parse(configured.stdout) as Array<{ view_url: string }>)[0]?.view_url).toMatch(
      /^https:\/\/junction\.example\.com\/hooks\/workflow-approvals\//,
    );
  }, 150_000);
});
