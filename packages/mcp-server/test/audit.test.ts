import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Store } from '@junction/store';
import { API_KEY, call, connectInMemory, createHarness, textOf, type Harness } from './harness.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness({ agents: { chat: 'model: openai/gpt-test' } });
  ({ client, close: closeClient } = await connectInMemory(h.deps, {
    name: 'audit-client',
    version: '4.5.6',
  }));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});
beforeEach(() => h.fake.reset());

let seen = 0;
/** The row of the call just made: rows are written just after the answer goes out. */
async function lastAudit(): Promise<Record<string, unknown>> {
  const row = await eventually('the audit row of the call just made', async () => {
    await h.store.auditLog.flush();
    const [newest] = await h.store.auditLog.list({ source: 'mcp', limit: 1 });
    return newest !== undefined && newest.id > seen ? newest : undefined;
  });
  seen = row.id;
  return row as unknown as Record<string, unknown>;
}

describe('audit log of tool calls', () => {
  it('records a successful call with the client as actor, the transport and the duration', async () => {
    await call(client, 'list_environments');
    expect(await lastAudit()).toMatchObject({
      source: 'mcp',
      transport: 'stdio',
      actor: 'audit-client/4.5.6',
      action: 'list_environments',
      arguments: {},
      outcome: 'success',
      durationMs: expect.any(Number),
      details: null,
    });
  });

  it('records a refused call as an error with the message', async () => {
    await call(client, 'get_agent_details', { agent_id: '4040' });
    expect(await lastAudit()).toMatchObject({
      action: 'get_agent_details',
      arguments: { agent_id: '4040' },
      outcome: 'error',
      details: {
        code: 'AGENT_NOT_FOUND',
        error: 'No agent has id 4040. Call list_agents for valid agent ids.',
      },
    });
  });

  it('records calls with invalid arguments too', async () => {
    await call(client, 'inspect_run', { run_id: 'abc' });
    expect(await lastAudit()).toMatchObject({
      action: 'inspect_run',
      outcome: 'error',
      details: { code: 'ARGUMENT_INVALID' },
    });
  });

  it('answers an unknown tool with a JSON-RPC invalid-params error and records it', async () => {
    const err = await client
      .callTool({ name: 'launch_rockets', arguments: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).message).toContain('Unknown tool "launch_rockets"');
    expect(await lastAudit()).toMatchObject({
      action: 'launch_rockets',
      outcome: 'error',
      details: { code: 'TOOL_UNKNOWN' },
    });
  });

  it('redacts secret-named arguments, key-shaped values and process secrets from the row', async () => {
    h.fake.script([{ text: 'ok' }]);
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      task: `use ${API_KEY}, sk-live-notInAnyEnv98765 and ghp_processEnvSecretValue123 to log in`,
      variables: {
        GITHUB_TOKEN: 'plain-token-value-42',
        db_password: 'hunter2hunter2',
        REGION: 'eu-west-1',
      },
    });
    expect(result.structuredContent?.status).toBe('completed');
    const row = await lastAudit();
    const stored = JSON.stringify(row);
    for (const secret of [
      API_KEY,
      'sk-live-notInAnyEnv98765',
      'ghp_processEnvSecretValue123',
      'plain-token-value-42',
      'hunter2hunter2',
    ]) {
      expect(stored).not.toContain(secret);
    }
    expect(row).toMatchObject({
      action: 'call_agent',
      outcome: 'success',
      arguments: {
        agent_name: 'chat',
        variables: { GITHUB_TOKEN: '[REDACTED]', db_password: '[REDACTED]', REGION: 'eu-west-1' },
      },
    });
    expect((row.arguments as { task: string }).task).toBe(
      'use [REDACTED], [REDACTED] and [REDACTED] to log in',
    );
  });

  it('redacts secret names inside an argument sent as a string of JSON (schedule_variables)', async () => {
    const chat = await h.get('chat');
    await call(client, 'set_schedule', {
      agent_id: String(chat.id),
      cron_schedule: '0 9 * * *',
      schedule_variables: '{"db_password": "hunter2hunter2", "REGION": "eu-west-1"}',
    });
    const row = await lastAudit();
    expect(JSON.stringify(row)).not.toContain('hunter2hunter2');
    expect(row).toMatchObject({
      action: 'set_schedule',
      outcome: 'success',
      arguments: { schedule_variables: '{"db_password":"[REDACTED]","REGION":"eu-west-1"}' },
    });
  });
  it('records a run that ended in error as an error outcome', async () => {
    h.fake.script([{ error: { status: 400, message: 'bad model day' } }]);
    await call(client, 'call_agent', { agent_name: 'chat', task: 'x' });
    const row = await lastAudit();
    expect(row).toMatchObject({ action: 'call_agent', outcome: 'error' });
    expect(JSON.stringify(row.details)).toContain('bad model day');
  });

  it('still answers the call when the audit write fails, and logs the failure', async () => {
    const broken = Object.create(h.store, {
      auditLog: {
        value: {
          record: async () => {
            throw new Error('disk full');
          },
        },
      },
    }) as Store;
    const { client: c, close } = await connectInMemory({ ...h.deps, store: broken });
    try {
      const result = await call(c, 'list_environments');
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('"default"');
      await eventually('the failed audit write to be logged', () =>
        h.logLines.join('').includes('writing the MCP audit row failed'),
      );
      expect(h.logLines.join('')).toContain('disk full');
    } finally {
      await close();
    }
  });
});
