// `junction stdio` and `junction serve` as real processes, driven by the official MCP SDK client.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runAsync, runCliAsync, syncedWorkspace, baseEnv } from './run-cli.js';
import { startServe } from './serve-process.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../bin/run.js');
// A third-party client: the MCP Inspector's CLI mode (pinned devDependency).
const inspector = path.resolve(here, '../node_modules/.bin/mcp-inspector');
const KEY = 'sk-mcp-surface-key-55555';

const TOOLS = [
  'approve_workflow_step',
  'call_agent',
  'cancel_run',
  'cancel_workflow_run',
  'create_agent',
  'discover_tools',
  'get_agent_details',
  'get_schedule',
  'get_workflow_run',
  'inspect_run',
  'list_agents',
  'list_environments',
  'list_mcp_configs',
  'list_runs',
  'list_schedules',
  'list_tools',
  'list_workflow_approvals',
  'list_workflow_runs',
  'list_workflows',
  'reject_workflow_step',
  'remove_schedule',
  'set_schedule',
  'start_workflow_run',
  'update_agent',
];

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => fake.reset());

interface ToolAnswer {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

function textOf(answer: ToolAnswer): string {
  return answer.content.map((c) => c.text ?? '').join('\n');
}

/** What every transport must do: list the tools, run an agent, queue one and inspect it, refuse bad input. */
async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  for (const t of tools) expect((t.description ?? '').length).toBeGreaterThan(20);

  const listed = await call(client, 'list_agents', {});
  expect(listed.isError).toBeFalsy();
  const agents = (listed.structuredContent as { agents: Array<{ id: number; name: string }> })
    .agents;
  const assistant = agents.find((a) => a.name === 'assistant');
  expect(assistant).toBeDefined();

  fake.script([
    { toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] },
    { text: 'The sum is 42.' },
  ]);
  const ran = await call(client, 'call_agent', {
    agent_id: String(assistant!.id),
    task: 'Add 2 and 40',
    timeout: 60,
  });
  expect(ran.isError).toBeFalsy();
  expect(ran.structuredContent).toMatchObject({
    status: 'completed',
    steps_taken: 2,
    final_response: 'The sum is 42.',
  });

  fake.script([{ text: 'queued answer' }]);
  const queued = await call(client, 'call_agent', {
    agent_name: 'assistant',
    task: 'later',
    async: true,
  });
  expect(queued.isError).toBeFalsy();
  // Returned at once: still queued, or already taken by an idle worker of the process.
  expect(['queued', 'running']).toContain((queued.structuredContent as { status: string }).status);
  const runId = String((queued.structuredContent as { run_id: number }).run_id);
  let inspected: ToolAnswer | undefined;
  for (let i = 0; i < 100; i++) {
    inspected = await call(client, 'inspect_run', { run_id: runId });
    const status = (inspected.structuredContent as { status?: string }).status;
    if (status === 'completed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(inspected?.structuredContent).toMatchObject({
    status: 'completed',
    final_response: 'queued answer',
  });

  const unknown = await call(client, 'get_agent_details', { agent_id: '987654' });
  expect(unknown.isError).toBe(true);
  expect(textOf(unknown)).toMatch(/987654/);
  const badId = await client
    .callTool({ name: 'get_agent_details', arguments: { agent_id: 'abc' } })
    .then((r) => r as ToolAnswer)
    .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
  expect(badId.isError).toBe(true);
  expect(textOf(badId)).toMatch(/agent_id/);
}

async function auditOf(transport: string): Promise<Array<Record<string, unknown>>> {
  const r = await runCliAsync(['logs', 'audit', '--filter', 'mcp', '--json', '-n', '500'], env);
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as Array<Record<string, unknown>>).filter(
    (e) => e.transport === transport,
  );
}

describe('junction stdio', () => {
  it('answers MCP on stdin/stdout only, runs agents, and audits every tool call', async () => {
    const errors: Error[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'stdio'],
      env: { ...baseEnv(), ...env } as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    client.onerror = (err): void => void errors.push(err);
    await client.connect(transport);
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
    // Anything but JSON-RPC on stdout would have surfaced as a client parse error.
    expect(errors).toEqual([]);
    expect(stderr).toContain('MCP over stdio ready');
    expect(stderr).not.toContain(KEY);
    const audit = await auditOf('stdio');
    const actions = audit.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['list_agents', 'call_agent', 'inspect_run']));
    expect(
      audit.find((e) => e.action === 'get_agent_details' && e.outcome === 'error'),
    ).toBeDefined();
    expect(audit[0]?.actor).toMatch(/stdio-test/);
  }, 120_000);
});

describe('junction serve', () => {
  it('serves MCP over HTTP on 127.0.0.1, answers the reachability GET, and stops cleanly on SIGTERM', async () => {
    const serve = await startServe(env);
    const port = serve.ports.mcp;
    try {
      await serve.ready;
      const reach = await fetch(`http://127.0.0.1:${port}/mcp`);
      expect(reach.status).toBe(200);
      expect(await reach.json()).toMatchObject({ name: 'junction' });
      const client = new Client({ name: 'http-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
      );
      try {
        await exercise(client);
      } finally {
        await client.close();
      }
      const audit = await auditOf('http');
      expect(audit.map((e) => e.action)).toEqual(expect.arrayContaining(['call_agent']));
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect(await serve.exit).toBe(0);
  }, 120_000);

  it('names the port and the flag when a port is in use, exits non-zero, and leaves nothing bound', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      for (const [flag, what] of [
        ['--mcp-port', 'MCP over HTTP'],
        ['--api-port', 'REST API'],
        ['--webhook-port', 'webhook routes'],
      ] as const) {
        const serve = await startServe(env, {
          [flag === '--mcp-port' ? 'mcp' : flag === '--api-port' ? 'api' : 'webhook']: port,
        });
        expect(await serve.exit).toBe(5);
        expect(serve.stderr()).toContain(`Port ${port} (${what}) is already in use`);
        expect(serve.stderr()).toContain(flag);
        // The ports bound before the failure were released again.
        for (const other of Object.values(serve.ports).filter((p) => p !== port)) {
          const probe = net.createServer();
          await new Promise<void>((resolve, reject) => {
            probe.once('error', reject);
            probe.listen(other, '127.0.0.1', () => resolve());
          });
          await new Promise<void>((r) => probe.close(() => r()));
        }
      }
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  }, 90_000);
});

function runInspector(args: string[]): ReturnType<typeof runAsync> {
  return runAsync(inspector, ['--cli', ...args], env);
}

describe('a third-party client (MCP Inspector CLI)', () => {
  it('lists the tools and calls list_agents over stdio and over HTTP', async () => {
    const stdio = ['-e', `XDG_CONFIG_HOME=${env.XDG_CONFIG_HOME}`, process.execPath, bin, 'stdio'];
    const listed = await runInspector([...stdio, '--method', 'tools/list']);
    expect(listed.status).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map(
      (t) => t.name,
    );
    expect(names.sort()).toEqual(TOOLS);
    const agents = await runInspector([
      ...stdio,
      '--method',
      'tools/call',
      '--tool-name',
      'list_agents',
    ]);
    expect(agents.status).toBe(0);
    expect(JSON.stringify(JSON.parse(agents.stdout).structuredContent)).toContain('"assistant"');

    const serve = await startServe(env);
    const port = serve.ports.mcp;
    try {
      await serve.ready;
      const overHttp = await runInspector([
        `http://127.0.0.1:${port}/mcp`,
        '--transport',
        'http',
        '--method',
        'tools/call',
        '--tool-name',
        'list_environments',
      ]);
      expect(overHttp.status).toBe(0);
      expect(JSON.parse(overHttp.stdout).structuredContent.environments[0]).toMatchObject({
        name: 'default',
      });
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect(await serve.exit).toBe(0);
  }, 120_000);
});
