// The management platform end to end: `junction serve` registers with the fake platform (gRPC
// over TLS from a test CA), the platform asks for an execution, the run goes through the run
// door with source `management`, is audited, answered queued → running → completed on the
// stream, and reported back with the platform's run id; runs of other sources are reported too.
// /health and `junction auth status` show the channel; the key is in no output, log or record.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeAuthServer } from '@junction/tooling/fixtures/fake-auth-server.mjs';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import {
  startFakePlatform,
  TLS_FILES,
  type FakePlatform,
  type ManagementMessage,
} from '@junction/tooling/fixtures/fake-platform.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { startServe, until } from './serve-process.js';

const KEY = 'reg-e2e-key-000111222';
const MODEL_KEY = 'sk-mgmt-model-key-4711';

let fake: FakeOpenAI;
let platform: FakePlatform;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  platform = await startFakePlatform({
    keys: { [KEY]: { orgId: 'org-e2e', stationId: 'st-e2e' } },
    heartbeatIntervalMs: 500,
  });
});

afterAll(async () => {
  await platform.stop();
  await fake.close();
});

function managementConfig(key: string): string {
  return [
    'management:',
    '  enabled: true',
    `  registration_key: ${key}`,
    '  name: e2e-station',
    `  endpoint: 127.0.0.1:${platform.port}`,
    `  ca_file: ${TLS_FILES.ca}`,
    '',
  ].join('\n');
}

describe('junction serve with the management platform', () => {
  it('registers, executes what the platform asks through the run door, audits it and reports every run', async () => {
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: { OPENAI_API_KEY: MODEL_KEY },
      config: managementConfig(KEY),
    });
    const serve = await startServe(env);
    try {
      await serve.ready;
      const rest = `http://127.0.0.1:${serve.ports.api}`;
      const health = await until('a connected channel', async () => {
        const body = (await (await fetch(`${rest}/health`)).json()) as Record<string, unknown>;
        return body.management === 'connected' ? body : undefined;
      });
      expect(health).toMatchObject({ status: 'healthy', scheduler: 'running' });
      expect(serve.stderr()).toContain(
        `registered with the management platform 127.0.0.1:${platform.port} as station st-e2e in organization org-e2e`,
      );
      const [auth] = platform.auths.filter((a) => a.auth?.name === 'e2e-station');
      expect(auth!.auth!.agents.map((a) => a.name)).toContain('assistant');

      // The platform asks for an execution.
      fake.script([
        { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
        { text: 'The sum is 5.' },
      ]);
      const done = await platform.request(
        'execute_agent_request',
        {
          agent_id: 'assistant',
          environment: 'default',
          task: 'Add 2 and 3',
          run_id: 'plat-run-1',
        },
        {
          timeoutMs: 30_000,
          until: (m: ManagementMessage) =>
            ['EXECUTION_COMPLETED', 'EXECUTION_FAILED'].includes(
              m.execute_agent_response?.status ?? '',
            ),
        },
      );
      const replies = platform.replies(done.request_id);
      expect(replies.map((r) => r.execute_agent_response?.status)).toEqual([
        'EXECUTION_QUEUED',
        'EXECUTION_RUNNING',
        'EXECUTION_COMPLETED',
      ]);
      expect(done).toMatchObject({ is_response: true, success: true });
      expect(done.execute_agent_response).toMatchObject({
        partial_response: 'The sum is 5.',
        tool_calls: [expect.objectContaining({ tool_name: 'add', success: true })],
      });
      const runId = Number(done.execute_agent_response!.execution_id);

      // The run is in the history with source management, and reported with the platform's id.
      const list = await runCliAsync(['runs', 'list', '--json'], env);
      const runs = JSON.parse(list.stdout) as Array<{
        run_id: number;
        source: string;
        status: string;
      }>;
      expect(runs.find((r) => r.run_id === runId)).toMatchObject({
        source: 'management',
        status: 'completed',
      });
      const report = await until('the report of the execution', async () =>
        platform.runReports.find(
          (r) => (r.request.run_data as { run_id?: string } | null)?.run_id === 'plat-run-1',
        ),
      );
      expect(report.request).toMatchObject({
        registration_key: KEY,
        source: 'RUN_SOURCE_UI_TRIGGERED',
        run_data: expect.objectContaining({
          agent_name: 'assistant',
          status: 'LIGHTHOUSE_RUN_STATUS_COMPLETED',
          token_usage: expect.objectContaining({ total_tokens: 30 }),
          tool_calls: [expect.objectContaining({ tool_name: 'add' })],
        }),
      });

      // Asking again with the same platform run id does not run it twice.
      const again = await platform.request(
        'execute_agent_request',
        { agent_id: 'assistant', task: 'Add 2 and 3', run_id: 'plat-run-1' },
        {
          timeoutMs: 30_000,
          until: (m: ManagementMessage) =>
            m.execute_agent_response?.status === 'EXECUTION_COMPLETED',
        },
      );
      expect(again.execute_agent_response!.execution_id).toBe(String(runId));

      // A run of another source is reported too.
      fake.script([{ text: 'hello back' }]);
      const queued = await runCliAsync(['agent', 'run', 'assistant', 'say hello', '--json'], env);
      expect(queued.status).toBe(0);
      const cliRunId = String((JSON.parse(queued.stdout) as { run_id: number }).run_id);
      await until('the report of the CLI run', async () =>
        platform.runReports.find(
          (r) => (r.request.run_data as { run_id?: string } | null)?.run_id === cliRunId,
        ),
      );

      // The execution is in the audit trail, without the key.
      const audit = await runCliAsync(['logs', 'audit', '--filter', 'management', '--json'], env);
      const rows = JSON.parse(audit.stdout) as Array<Record<string, unknown>>;
      expect(rows[rows.length - 1]).toMatchObject({
        source: 'management',
        transport: 'grpc',
        action: 'execute_agent',
        outcome: 'success',
        details: expect.objectContaining({ platform_run_id: 'plat-run-1', run_id: runId }),
      });

      // auth status sees the channel the running serve holds.
      const status = await runCliAsync(['auth', 'status', '--json'], env);
      expect(JSON.parse(status.stdout)).toMatchObject({
        connected: true,
        organization: 'org-e2e',
        station_name: 'e2e-station',
        station_id: 'st-e2e',
        key_source: 'config',
      });
      const text = await runCliAsync(['auth', 'status'], env);
      expect(text.stdout).toMatch(/Connected:\s+yes/);
      expect(text.stdout).toMatch(/Organization:\s+org-e2e/);
      expect(text.stdout).toMatch(/Last sync:\s+\S/);

      // The key is nowhere a user or an operator reads.
      const home = env.XDG_CONFIG_HOME!;
      const logFile = readFileSync(path.join(home, 'junction', 'logs', 'junction.log'), 'utf8');
      for (const output of [serve.stdout(), serve.stderr(), logFile, audit.stdout, status.stdout]) {
        expect(output).not.toContain(KEY);
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
    // The platform sees the station go; auth status says so.
    const after = await runCliAsync(['auth', 'status', '--json'], env);
    expect(JSON.parse(after.stdout)).toMatchObject({ connected: false });
  });

  it('keeps serving when the platform refuses the key, and says why', async () => {
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: { OPENAI_API_KEY: MODEL_KEY },
      config: managementConfig('reg-refused-key-424242'),
    });
    const serve = await startServe(env);
    try {
      await serve.ready;
      const rest = `http://127.0.0.1:${serve.ports.api}`;
      await until('the refusal in /health', async () => {
        const body = (await (await fetch(`${rest}/health`)).json()) as Record<string, unknown>;
        return body.management === 'error' ? body : undefined;
      });
      expect(serve.stderr()).toContain(
        `failed to connect to 127.0.0.1:${platform.port}: the platform refused the registration key`,
      );
      expect(serve.stderr()).not.toContain('reg-refused-key-424242');
      fake.script([{ text: 'still here' }]);
      const res = await fetch(`${rest}/api/v1/agents`);
      expect(res.status).toBe(200);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  });

  it('guards MCP over HTTP with platform OAuth tokens when management.oauth.enabled', async () => {
    const auth = await startFakeAuthServer({ clientId: 'junction-app' });
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: { OPENAI_API_KEY: MODEL_KEY },
      config: `management:\n  base_url: ${auth.url}\n  oauth:\n    enabled: true\n    client_id: junction-app\n    scopes: [mcp]\n`,
    });
    const serve = await startServe(env);
    try {
      await serve.ready;
      const mcp = `http://127.0.0.1:${serve.ports.mcp}`;
      const init = (token?: string): Promise<Response> =>
        fetch(`${mcp}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'e2e', version: '1.0.0' },
            },
          }),
        });
      const anonymous = await init();
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${mcp}/.well-known/oauth-protected-resource"`,
      );
      const metadata = (await (
        await fetch(`${mcp}/.well-known/oauth-protected-resource`)
      ).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({ resource: `${mcp}/mcp`, authorization_servers: [auth.url] });
      auth.addToken('tok-no-scope-000111', { scope: 'other' });
      expect((await init('tok-no-scope-000111')).status).toBe(403);
      auth.addToken('tok-good-000222333', { scope: 'mcp', username: 'alice' });
      const ok = await init('tok-good-000222333');
      expect(ok.status).toBe(200);
      expect(auth.introspections.at(-1)).toMatchObject({
        token: 'tok-good-000222333',
        client_id: 'junction-app',
      });
      const audit = await runCliAsync(['logs', 'audit', '--filter', 'mcp', '--json'], env);
      expect(audit.stdout).toContain('oauth.authenticate');
      expect(audit.stdout).not.toContain('tok-good-000222333');
      auth.setMode('down');
      expect((await init('tok-fresh-000444555')).status).toBe(503);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
      await auth.stop();
    }
  });
});
