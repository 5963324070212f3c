import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import {
  isStoreError,
  type Agent,
  type McpServer,
  type Run,
  type Store,
  type Tool,
} from '@junction/store';
import type { Tracer } from '@junction/telemetry';
import { SPAN_TOOL_CALL, SpanKind, toolCallAttributes, withSpan } from '@junction/telemetry';
import { z } from 'zod';
import type { McpClientPool, McpServerSpec, ToolCallResult } from '../mcp/mcp-client-pool.js';
import { serverKey } from '../sync/sync-environment.js';
import { RunCancelled, RunInterrupted } from './lease.js';
import type { AskedCall, ResumeDecision } from './attempt-journal.js';
import { IDEMPOTENCY_META_KEY } from './run-journal.js';
import { runRequestFields } from './run-request.js';

/** Something that happened to a tool during a run, for events and live progress. */
export interface ToolCallRecord {
  /** The model's id of the call. */
  id: string;
  step: number;
  tool: string;
  server: string;
  arguments: unknown;
  result: string;
  success: boolean;
  error?: string;
  durationMs: number;
}

export interface SubAgentOutcome {
  run: Run;
  output: string;
}

/** The agent's bindings as stored: its MCP tools with their servers, and its sub-agents. */
export interface ToolWiring {
  mcp: Array<{ tool: Tool; server: McpServer }>;
  subAgents: Agent[];
}

/** Reads an agent's tool and sub-agent bindings from the store. */
export async function loadToolWiring(store: Store, agent: Agent): Promise<ToolWiring> {
  const servers = new Map<number, McpServer | undefined>();
  const mcp: ToolWiring['mcp'] = [];
  for (const tool of await store.agents.listTools(agent.id)) {
    if (!servers.has(tool.serverId))
      servers.set(tool.serverId, await store.mcpServers.get(tool.serverId));
    const server = servers.get(tool.serverId);
    if (server) mcp.push({ tool, server });
  }
  return { mcp, subAgents: await store.agents.listSubAgents(agent.id) };
}

/**
 * A tool Junction itself gives a run, beside the agent's MCP tools and sub-agents (the coding
 * tools are these). Traced, recorded and stopped like an MCP tool call.
 */
export interface LocalTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
  /** What events and traces name as the tool's server, e.g. `coding`. */
  server: string;
  /**
   * Does the call. The signal follows the run's, except for a cancel (see unlessCancelled): a
   * call already under way finishes and its answer is recorded.
   */
  execute(
    args: unknown,
    call: { signal?: AbortSignal },
  ): Promise<{ text: string; isError: boolean }>;
}

export interface RunToolsInput {
  pool: McpClientPool;
  tracer: Tracer;
  wiring: ToolWiring;
  environment: string;
  /** The model turn the next tool call belongs to. */
  currentStep: () => number;
  onToolCall: (record: ToolCallRecord) => Promise<void> | void;
  /**
   * Awaited right before a call leaves: an MCP tools/call once its server is connected (not
   * while connecting, so a run stopped then is re-queued), a local tool as it starts, a
   * sub-agent before its run is written. When it throws, the call is not made and the model
   * gets the error.
   */
  onToolStart?: (call: AskedCall) => Promise<void> | void;
  /**
   * Runs a sub-agent as a child run and returns its final answer; `key` is the call's
   * idempotency key, which the child's run is written under.
   */
  runSubAgent: (
    subAgent: Agent,
    task: string,
    variables: Record<string, string>,
    key: string | undefined,
  ) => Promise<SubAgentOutcome>;
  /** Tools given by the process rather than an MCP server (see LocalTool). */
  localTools?: readonly LocalTool[];
  /**
   * Told when the run must stop at a tool call: a store call of it failed (its outage outlasted
   * the wait, or the query itself failed), or a resumed run met a call whose outcome is unknown.
   * The model never gets that error (a store's text may be the database's) as a tool result.
   */
  stopRun?: (err: unknown) => void;
  /** A resumed attempt's answer for a call (see AttemptJournal.decide); undefined: call it. */
  resume?: (call: AskedCall) => ResumeDecision | undefined;
  /** The call's idempotency key, sent to MCP tool servers in the request's `_meta`. */
  idempotencyKey?: (step: number, callId: string) => string | undefined;
  now?: () => number;
}

/** What a model may pass to a sub-agent tool: the run request's own task and variables. */
const SUB_AGENT_ARGS = z.strictObject(
  { task: runRequestFields.task, variables: runRequestFields.variables.optional() },
  { error: 'the arguments must be an object' },
);

/** The name a sub-agent has as a tool. */
export function subAgentToolName(name: string): string {
  return `agent_${name}`;
}

// One spec per stored server row (rows live as long as their cached wiring), so the pool sees
// the same object on every call and hashes it once.
const specs = new WeakMap<McpServer, McpServerSpec>();

function specOf(server: McpServer): McpServerSpec {
  let spec = specs.get(server);
  if (!spec) {
    spec = newSpec(server);
    specs.set(server, spec);
  }
  return spec;
}

function newSpec(server: McpServer): McpServerSpec {
  return server.transport === 'stdio'
    ? {
        name: server.name,
        transport: 'stdio',
        command: server.command ?? '',
        args: server.args ?? [],
        env: server.env ?? {},
        ...(server.cwd ? { cwd: server.cwd } : {}),
      }
    : {
        name: server.name,
        transport: 'http',
        url: server.url ?? '',
        headers: server.headers ?? {},
      };
}

/** The text a model reads from an MCP tool result. */
export function resultText(result: ToolCallResult): string {
  const parts = result.content.map((c) =>
    c.type === 'text' && typeof c.text === 'string' ? c.text : JSON.stringify(c),
  );
  if (parts.length === 0 && result.structuredContent)
    return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The store itself failed (away, locked, closed, broken): the run stops. Any other store answer
 * to a tool (a sub-agent gone, a conflict) is the tool's error, for the model to act on.
 */
function storeFault(err: unknown): boolean {
  return (
    isStoreError(err) &&
    (['STORE_UNAVAILABLE', 'STORE_BUSY', 'STORE_CLOSED', 'STORE_QUERY_FAILED'] as const).some(
      (code) => err.code === code,
    )
  );
}

/**
 * The tools a run exposes to the model: the agent's MCP tools (called through the pool)
 * and each sub-agent as a tool that starts a child run. A tool's failure is thrown back to
 * the AI SDK, which hands it to the model as a tool error; it does not end the run.
 */
export function buildRunTools(input: RunToolsInput): ToolSet {
  const calls = new ToolCalls(input);
  const tools: ToolSet = {};
  for (const { tool, server } of input.wiring.mcp) tools[tool.name] = mcpTool(calls, tool, server);
  for (const local of input.localTools ?? []) tools[local.name] = localTool(calls, local);
  for (const sub of input.wiring.subAgents) {
    const name = subAgentToolName(sub.name);
    tools[name] = subAgentTool(calls, sub, name);
  }
  return tools;
}

/** What a tool does when called: its text, and whether that text is an error. */
type ToolCall = () => Promise<{ text: string; isError: boolean }>;

/**
 * How every tool of one run is called: the resume decision first, then the call itself, traced
 * and recorded the same way whatever kind of tool it is.
 */
class ToolCalls {
  readonly input: RunToolsInput;
  readonly tracer: Tracer;
  readonly now: () => number;

  constructor(input: RunToolsInput) {
    this.input = input;
    this.tracer = input.tracer;
    this.now = input.now ?? Date.now;
  }

  /**
   * A call the model asked for: answered from the journal when an earlier attempt finished it,
   * else made (or skipped, or the run stopped) as the resume decision says, traced and recorded.
   */
  async answer(
    id: string,
    tool: string,
    server: string,
    args: unknown,
    call: ToolCall,
  ): Promise<string> {
    const input = this.input;
    const step = input.currentStep();
    const decision = input.resume?.({ id, step, tool, server, args });
    if (decision?.kind === 'replay') {
      if (decision.outcome.error !== undefined) throw new Error(decision.outcome.error);
      return decision.outcome.text;
    }
    if (decision?.kind === 'stop') {
      input.stopRun?.(decision.error);
      throw decision.error;
    }
    const skipped = decision?.kind === 'skip' ? decision.text : undefined;
    return this.traced(
      id,
      tool,
      server,
      args,
      skipped === undefined ? call : async () => ({ text: skipped, isError: true }),
    );
  }

  /** The call made inside a `tool.call` span, then reported to onToolCall, failed or not. */
  async traced(
    id: string,
    tool: string,
    server: string,
    args: unknown,
    call: ToolCall,
  ): Promise<string> {
    const input = this.input;
    return withSpan(
      this.tracer,
      SPAN_TOOL_CALL,
      toolCallAttributes({ toolName: tool, toolServer: server }),
      async (span) => {
        const started = this.now();
        const step = input.currentStep();
        let text = '';
        let error: string | undefined;
        try {
          const out = await call();
          text = out.text;
          if (out.isError) error = text || 'the tool reported an error';
        } catch (err) {
          if (storeFault(err) && input.stopRun) {
            // Not the tool's answer: the run stops, and the model is not asked again.
            input.stopRun(err);
            throw new Error('The run stopped: its store did not answer.');
          }
          error = messageOf(err);
        }
        const durationMs = this.now() - started;
        span.setAttributes(toolCallAttributes({ durationMs, success: error === undefined }));
        await input.onToolCall({
          id,
          step,
          tool,
          server,
          arguments: args,
          result: text,
          success: error === undefined,
          ...(error !== undefined ? { error } : {}),
          durationMs,
        });
        if (error !== undefined) throw new Error(error);
        return text;
      },
      // A call out to a tool server: CLIENT, as the conventions say.
      { kind: SpanKind.CLIENT },
    );
  }
}

/** An agent's MCP tool: a tools/call through the pool to its server, in the run's environment. */
function mcpTool(calls: ToolCalls, t: Tool, server: McpServer): ToolSet[string] {
  const input = calls.input;
  const pool = input.pool;
  const spec = specOf(server);
  const key = serverKey(input.environment, server.name);
  const serverName = server.name;
  return dynamicTool({
    description: t.description ?? t.name,
    inputSchema: jsonSchema(
      (t.inputSchema as Record<string, unknown> | null) ?? { type: 'object' },
    ),
    execute: async (args, { abortSignal, toolCallId }) =>
      calls.answer(toolCallId, t.name, serverName, args, async () => {
        const call = abortSignal ? unlessCancelled(abortSignal) : undefined;
        const step = input.currentStep();
        const idempotency = input.idempotencyKey?.(step, toolCallId);
        try {
          const result = await pool.callTool(
            key,
            spec,
            t.name,
            (args ?? {}) as Record<string, unknown>,
            {
              ...(call ? { signal: call.signal } : {}),
              ...(input.onToolStart
                ? {
                    beforeSend: () =>
                      input.onToolStart?.({
                        id: toolCallId,
                        step,
                        tool: t.name,
                        server: serverName,
                        args,
                      }),
                  }
                : {}),
              ...(idempotency ? { meta: { [IDEMPOTENCY_META_KEY]: idempotency } } : {}),
            },
          );
          return { text: resultText(result), isError: result.isError };
        } finally {
          call?.done();
        }
      }),
  });
}

/** A tool Junction gives the run itself (see LocalTool), called in process. */
function localTool(calls: ToolCalls, local: LocalTool): ToolSet[string] {
  const input = calls.input;
  return dynamicTool({
    description: local.description,
    inputSchema: jsonSchema(local.inputSchema),
    execute: async (args, { abortSignal, toolCallId }) =>
      calls.answer(toolCallId, local.name, local.server, args, async () => {
        const call = abortSignal ? unlessCancelled(abortSignal) : undefined;
        try {
          await input.onToolStart?.({
            id: toolCallId,
            step: input.currentStep(),
            tool: local.name,
            server: local.server,
            args,
          });
          return await local.execute(args ?? {}, call ? { signal: call.signal } : {});
        } finally {
          call?.done();
        }
      }),
  });
}

/** A sub-agent as a tool named `name`: each call is a child run, and its final answer the text. */
function subAgentTool(calls: ToolCalls, sub: Agent, name: string): ToolSet[string] {
  const input = calls.input;
  return dynamicTool({
    description:
      `Delegate a task to the "${sub.name}" agent and get its final answer. ${sub.description}`.trim(),
    inputSchema: jsonSchema({
      type: 'object',
      properties: {
        task: { type: 'string', description: 'What the agent should do, in full.' },
        variables: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Optional named values for the agent prompt.',
        },
      },
      required: ['task'],
      additionalProperties: false,
    }),
    execute: async (args, { toolCallId }) =>
      calls.answer(toolCallId, name, 'junction', args, async () => {
        // The model's arguments are checked by the run request's own fields before anything is
        // written: a wrong shape is a tool error that says what to send, never database text.
        const checked = SUB_AGENT_ARGS.safeParse(args);
        if (!checked.success) {
          return {
            text: `Invalid arguments for ${name}: ${checked.error.issues.map((i) => i.message).join('; ')}. Send {"task": "<what the agent should do>", "variables": {"NAME": "value"}}.`,
            isError: true,
          };
        }
        const { task, variables } = checked.data;
        const step = input.currentStep();
        await input.onToolStart?.({ id: toolCallId, step, tool: name, server: 'junction', args });
        const outcome = await input.runSubAgent(
          sub,
          task,
          variables ?? {},
          input.idempotencyKey?.(step, toolCallId),
        );
        if (outcome.run.status !== 'completed') {
          return {
            text: `Sub-agent run ${outcome.run.id} ended ${outcome.run.status}: ${outcome.run.error ?? ''}`,
            isError: true,
          };
        }
        return { text: outcome.output, isError: false };
      }),
  });
}

/**
 * A signal for one tool call that follows the run's, except when the run is cancelled or handed
 * over (a graceful stop): a tool call already sent returns first (its effects and answer are
 * recorded), and the run stops at its next model call. A timeout or a lost lease still stop it.
 * `done` detaches it.
 */
function unlessCancelled(run: AbortSignal): { signal: AbortSignal; done(): void } {
  const call = new AbortController();
  const follow = (): void => {
    if (!(run.reason instanceof RunCancelled) && !(run.reason instanceof RunInterrupted))
      call.abort(run.reason);
  };
  if (run.aborted) follow();
  else run.addEventListener('abort', follow, { once: true });
  return { signal: call.signal, done: () => run.removeEventListener('abort', follow) };
}
