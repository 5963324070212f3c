// The coding tools an agent gets when its prompt file says `coding.enabled: true` and config.yaml
// has a coding section: coding_open → session id, code, coding_commit, coding_push,
// coding_close. Sessions are rows of the store (spec §3's state machine: a closed or unknown
// session is a tool error that says so); the work is the backend's. The git token never leaves
// here except in the one place the backend needs it, and is scrubbed from everything recorded.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { LocalTool, RunToolContext, RunToolProvider } from '@junction/agent-core/runs';
import type { CodingSession, Store } from '@junction/store';
import {
  createRedactor,
  recordSpanError,
  redactUrl,
  SpanKind,
  withSpan,
  type Logger,
} from '@junction/telemetry';
import type {
  CodingBackend,
  CodingBackendKind,
  CodingOutcome,
  CodingProgress,
  CodingWorkspace,
  TaskCall,
} from './backend.js';
import { managedWorkspaceName } from './http-backend.js';
import { codePrompt } from './prompts.js';
import type { CodingSettings } from './settings.js';

/** Span of one coding task sent to a coding backend (under the `code` tool's `tool.call`). */
export const SPAN_CODING_TASK = 'coding.task';

export const CODING_TOOL_NAMES = [
  'coding_open',
  'code',
  'coding_commit',
  'coding_push',
  'coding_close',
] as const;

/** The slice of the store the coding tools use: their sessions, never a run. */
export type CodingToolsStore = Pick<Store, 'codingSessions'>;

export interface CodingToolsOptions {
  settings: CodingSettings;
  store: CodingToolsStore;
  logger: Logger;
  /** The backend of a kind (the config's own is started with the process; another on first use). */
  backend(kind: CodingBackendKind): Promise<CodingBackend>;
}

/** Where the model's answer says a tool went wrong. */
type Answer = { text: string; isError: boolean };

/** Takes the git token and URL credentials out of a text or a structure. */
type Scrub = <T>(value: T) => T;

/** What the coding tools of one run work with. */
interface RunKit {
  options: CodingToolsOptions;
  ctx: RunToolContext;
  /** The backend this agent's new sessions open at. */
  kind: CodingBackendKind;
  token: string | undefined;
  scrub: Scrub;
}

const SESSION_ID = { type: 'string', description: 'Coding session ID from coding_open' };
/** A remote or branch name git accepts, and that no shell or option parser misreads. */
const REF_NAME = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;
/** A workspace name at a bus backend: a relative folder, no climbing out. */
const WORKSPACE_NAME = /^(?!.*\.\.)[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

function fail(text: string): Answer {
  return { text, isError: true };
}

function answer(value: Record<string, unknown>, isError = false): Answer {
  return { text: JSON.stringify(value), isError };
}

/** The string argument `key`, trimmed; undefined when absent; a message when it is not text. */
function textArg(args: Record<string, unknown>, key: string): string | undefined | Error {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return new Error(`${key} must be a string`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function createCodingTools(options: CodingToolsOptions): RunToolProvider {
  const { settings, logger } = options;
  const told = new Set<string>();
  const token = settings.git.token;

  /** Logs why an agent has no coding tools, once per agent and cause. */
  const notEnabled = (
    ctx: RunToolContext,
    cause: string,
    level: 'debug' | 'info' | 'warn',
  ): void => {
    const key = `${ctx.agent.id}:${cause}`;
    if (told.has(key)) return;
    told.add(key);
    logger[level](`Coding tools NOT enabled for agent "${ctx.agent.name}": ${cause}`, {
      agent_name: ctx.agent.name,
    });
  };

  // The token and URL credentials out of anything recorded or answered: the logs' own redactor.
  const redactor = createRedactor(token ? [token] : []);
  const scrub: Scrub = <T>(value: T): T =>
    (typeof value === 'string' ? redactor.text(value) : redactor.value(value)) as T;

  return {
    async tools(ctx: RunToolContext): Promise<LocalTool[]> {
      const wanted = ctx.definition.coding?.enabled === true;
      if (!settings.enabled) {
        if (wanted)
          notEnabled(
            ctx,
            'config.yaml has no coding section; add one (coding.backend: opencode-nats or opencode) to give it coding tools.',
            'warn',
          );
        return [];
      }
      if (!wanted) {
        notEnabled(ctx, 'its prompt file does not set coding.enabled: true.', 'debug');
        return [];
      }
      const kind: CodingBackendKind = ctx.definition.coding?.backend ?? settings.backend;
      const kit: RunKit = { options, ctx, kind, token, scrub };
      return [openTool(kit), codeTool(kit), commitTool(kit), pushTool(kit), closeTool(kit)];
    },
  };
}

// ---- What the tools share ----

function workspaceOf(s: CodingSession): CodingWorkspace {
  return {
    sessionId: s.id,
    workspaceName: s.workspaceName,
    workspacePath: s.workspacePath,
    backendSessionId: s.backendSessionId,
    repoUrl: s.repoUrl,
    branch: s.branch,
    title: s.title,
  };
}

function outcomeFields(out: CodingOutcome): Record<string, unknown> {
  return {
    status: out.status,
    ...(out.error ? { error: out.error } : {}),
    files_changed: out.filesChanged,
    tokens_used: out.inputTokens + out.outputTokens,
    input_tokens: out.inputTokens,
    output_tokens: out.outputTokens,
    tool_calls: out.toolCalls,
    ...(out.attempts > 1 ? { attempts: out.attempts } : {}),
    duration_ms: out.durationMs,
  };
}

/** A backend call of this run: its progress events recorded (scrubbed), stopped by `signal`. */
function taskCall(kit: RunKit, signal?: AbortSignal): TaskCall {
  return {
    ...(signal ? { signal } : {}),
    onEvent: (event: CodingProgress) => kit.ctx.event('coding_event', kit.scrub(event)),
  };
}

/** Does a tool's work: its answer scrubbed, and a throw made an error answer. */
async function runTool(kit: RunKit, work: () => Promise<Answer>): Promise<Answer> {
  try {
    const out = await work();
    return { text: kit.scrub(out.text), isError: out.isError };
  } catch (err) {
    kit.options.logger.error('coding tool failed', { error: kit.scrub((err as Error).message) });
    return fail(`The coding tool failed: ${kit.scrub((err as Error).message)}`);
  }
}

/** The open session `id`, its backend ready, or the answer that says why not. */
async function findOpenSession(
  kit: RunKit,
  args: Record<string, unknown>,
): Promise<{ session: CodingSession; backend: CodingBackend } | Answer> {
  const id = textArg(args, 'session_id');
  if (id === undefined || id instanceof Error)
    return fail('session_id is required: the id coding_open returned.');
  const session = await kit.options.store.codingSessions.get(id);
  if (!session) return fail(`No coding session ${id}; open one with coding_open first.`);
  if (session.status !== 'open')
    return fail(`Coding session ${id} is closed; open a new one with coding_open.`);
  // A backend that is down answers the call itself, with the same reason problem() gives.
  return { session, backend: await kit.options.backend(session.backend) };
}

/** Keeps what a task told of the session (path, backend id, commit). */
async function remember(
  store: CodingToolsStore,
  session: CodingSession,
  out: CodingOutcome,
  message = false,
): Promise<void> {
  await store.codingSessions.update(session.id, {
    ...(out.workspacePath ? { workspacePath: out.workspacePath } : {}),
    ...(out.backendSessionId ? { backendSessionId: out.backendSessionId } : {}),
    ...(out.git?.commit ? { lastCommit: out.git.commit } : {}),
    ...(out.git?.branch ? { branch: out.git.branch } : {}),
    ...(message ? { messageCount: session.messageCount + 1 } : {}),
  });
}

// ---- coding_open ----

function openTool(kit: RunKit): LocalTool {
  return {
    name: 'coding_open',
    server: 'coding',
    description:
      'Open a coding session: a workspace (a clone of repo_url when given) and a coding assistant session in it. Returns the session_id the other coding tools take.',
    inputSchema: {
      type: 'object',
      properties: {
        repo_url: {
          type: 'string',
          description: 'Git repository to clone into the workspace (optional).',
        },
        branch: {
          type: 'string',
          description: 'Branch to check out (optional; the default branch otherwise).',
        },
        workspace_path: {
          type: 'string',
          description:
            kit.kind === 'opencode'
              ? 'An existing folder to work in (absolute path); omit for a new workspace Junction removes on coding_close.'
              : "The workspace's name at the coding backend (a relative folder name); omit for one named after the session.",
        },
        title: { type: 'string', description: 'Optional session title.' },
      },
      additionalProperties: false,
    },
    execute: (raw, { signal }) => runTool(kit, () => openCodingSession(kit, raw, signal)),
  };
}

/** coding_open's arguments, each text or absent. */
interface OpenArgs {
  repoUrl: string | undefined;
  branch: string | undefined;
  /** workspace_path as given; placeWorkspace checks it against the backend's kind. */
  given: string | undefined;
  title: string | undefined;
}

/** coding_open's arguments, or the answer that says which one is wrong. */
function openArgs(raw: unknown): OpenArgs | Answer {
  const args = (raw ?? {}) as Record<string, unknown>;
  const repoUrl = textArg(args, 'repo_url');
  const branch = textArg(args, 'branch');
  const given = textArg(args, 'workspace_path');
  const title = textArg(args, 'title');
  for (const v of [repoUrl, branch, given, title])
    if (v instanceof Error) return fail(`Invalid arguments for coding_open: ${v.message}.`);
  if (typeof branch === 'string' && !REF_NAME.test(branch))
    return fail(`Invalid arguments for coding_open: branch "${branch}" is not a branch name.`);
  // No message is left (each was answered above): what remains is text or absent.
  const text = (v: string | undefined | Error): string | undefined =>
    typeof v === 'string' ? v : undefined;
  return { repoUrl: text(repoUrl), branch: text(branch), given: text(given), title: text(title) };
}

/** Where a new session's workspace is: its name at the backend and, for opencode, its path here. */
type Placement = { workspaceName: string; workspacePath: string | null };

/** The workspace of new session `id` (workspace_path as `given`), or the answer why not there. */
function placeWorkspace(
  kind: CodingBackendKind,
  given: string | undefined,
  id: string,
  workspaceBasePath: string,
): Placement | Answer {
  const workspaceName = managedWorkspaceName(id);
  if (kind === 'opencode') {
    if (typeof given !== 'string')
      return { workspaceName, workspacePath: path.join(workspaceBasePath, workspaceName) };
    if (!path.isAbsolute(given))
      return fail(
        `Invalid arguments for coding_open: workspace_path must be an absolute folder path on the Junction host (got "${given}").`,
      );
    return { workspaceName: path.basename(given), workspacePath: given };
  }
  if (typeof given !== 'string') return { workspaceName, workspacePath: null };
  if (!WORKSPACE_NAME.test(given))
    return fail(
      `Invalid arguments for coding_open: workspace_path "${given}" must be a relative folder name at the coding backend (letters, digits, . _ - and /, no "..").`,
    );
  return { workspaceName: given, workspacePath: null };
}

/** coding_open: a session row, then the backend's workspace; the row is closed if that fails. */
async function openCodingSession(kit: RunKit, raw: unknown, signal?: AbortSignal): Promise<Answer> {
  const { options, ctx, kind, token } = kit;
  const { store, logger } = options;
  const args = openArgs(raw);
  if ('text' in args) return args;
  const { repoUrl, branch, title } = args;
  const backend = await options.backend(kind);
  const problem = await backend.problem();
  if (problem) return fail(kit.scrub(problem));
  const id = `cs-${randomBytes(6).toString('hex')}`;
  const placed = placeWorkspace(kind, args.given, id, options.settings.workspaceBasePath);
  if ('text' in placed) return placed;
  const { workspaceName, workspacePath } = placed;
  const session = await store.codingSessions.create({
    id,
    backend: kind,
    runId: ctx.run.id,
    agentId: ctx.agent.id,
    agentName: ctx.agent.name,
    ...(typeof title === 'string' ? { title } : {}),
    ...(typeof repoUrl === 'string' ? { repoUrl: redactUrl(repoUrl) } : {}),
    ...(typeof branch === 'string' ? { branch } : {}),
    workspaceName,
    ...(workspacePath ? { workspacePath } : {}),
  });
  const workspace = {
    ...workspaceOf(session),
    repoUrl: typeof repoUrl === 'string' ? repoUrl : null,
  };
  const out = await backend.open(workspace, {
    ...taskCall(kit, signal),
    ...(token ? { token } : {}),
  });
  if (out.status !== 'completed') {
    await store.codingSessions.close(id);
    return answer({ success: false, session_id: id, ...outcomeFields(out) }, true);
  }
  await remember(store, session, out);
  logger.info('coding session opened', {
    session_id: id,
    backend: kind,
    agent_name: ctx.agent.name,
  });
  return answer({
    success: true,
    session_id: id,
    backend: kind,
    workspace_path: out.workspacePath ?? workspacePath ?? workspaceName,
    ...(out.git ? { branch: out.git.branch, commit: out.git.commit } : {}),
  });
}

// ---- code ----

function codeTool(kit: RunKit): LocalTool {
  return {
    name: 'code',
    server: 'coding',
    description:
      'Delegate a coding task to the coding assistant in an open session: it edits files and runs commands in the workspace, and reports what it changed.',
    inputSchema: {
      type: 'object',
      properties: {
        session_id: SESSION_ID,
        instruction: {
          type: 'string',
          description: "What the coding assistant should do, e.g. 'Fix the null check in auth.go'.",
        },
        context: {
          type: 'string',
          description: 'Additional context about the task (optional).',
        },
        files: {
          type: 'array',
          items: { type: 'string' },
          description: 'Files to focus on (optional).',
        },
      },
      required: ['session_id', 'instruction'],
      additionalProperties: false,
    },
    execute: (raw, { signal }) => runTool(kit, () => delegateTask(kit, raw, signal)),
  };
}

/** code: the instruction, as a prompt, to the session's assistant; what it did is the answer. */
async function delegateTask(kit: RunKit, raw: unknown, signal?: AbortSignal): Promise<Answer> {
  const args = (raw ?? {}) as Record<string, unknown>;
  const instruction = textArg(args, 'instruction');
  const context = textArg(args, 'context');
  if (instruction === undefined || instruction instanceof Error)
    return fail('instruction is required: say what the coding assistant should do.');
  if (context instanceof Error) return fail(`Invalid arguments for code: ${context.message}.`);
  const files = args.files;
  if (files !== undefined && (!Array.isArray(files) || files.some((f) => typeof f !== 'string')))
    return fail('Invalid arguments for code: files must be a list of file paths.');
  const got = await findOpenSession(kit, args);
  if ('text' in got) return got;
  const prompt = codePrompt(instruction, context, files as string[] | undefined);
  const out = await tracedTask(kit, got, prompt, signal);
  await remember(kit.options.store, got.session, out, true);
  return answer(
    { success: out.status === 'completed', summary: out.text, ...outcomeFields(out) },
    out.status !== 'completed',
  );
}

/** The backend's work on `prompt`, as its own span (a task that did not complete is its error). */
function tracedTask(
  kit: RunKit,
  got: { session: CodingSession; backend: CodingBackend },
  prompt: string,
  signal?: AbortSignal,
): Promise<CodingOutcome> {
  // The coding task is its own span under the tool call (and so in the run's trace).
  return withSpan(
    kit.ctx.tracer,
    SPAN_CODING_TASK,
    {
      'coding.session_id': got.session.id,
      'coding.backend': got.session.backend,
      'coding.workspace': got.session.workspaceName,
    },
    async (span) => {
      const outcome = await got.backend.code(
        workspaceOf(got.session),
        prompt,
        taskCall(kit, signal),
      );
      span.setAttributes({
        'coding.status': outcome.status,
        'coding.files_changed': outcome.filesChanged.length,
        'gen_ai.usage.input_tokens': outcome.inputTokens,
        'gen_ai.usage.output_tokens': outcome.outputTokens,
      });
      if (outcome.status !== 'completed') {
        recordSpanError(
          span,
          new Error(kit.scrub(outcome.error ?? `the coding task ended ${outcome.status}`)),
        );
      }
      return outcome;
    },
    { kind: SpanKind.CLIENT },
  );
}

// ---- coding_commit ----

function commitTool(kit: RunKit): LocalTool {
  return {
    name: 'coding_commit',
    server: 'coding',
    description: 'Commit every change in the coding session workspace (git add -A, git commit).',
    inputSchema: {
      type: 'object',
      properties: {
        session_id: SESSION_ID,
        message: { type: 'string', description: 'Commit message describing the changes.' },
      },
      required: ['session_id', 'message'],
      additionalProperties: false,
    },
    execute: (raw, { signal }) => runTool(kit, () => commitChanges(kit, raw, signal)),
  };
}

/** coding_commit: everything in the workspace, committed with the model's message. */
async function commitChanges(kit: RunKit, raw: unknown, signal?: AbortSignal): Promise<Answer> {
  const args = (raw ?? {}) as Record<string, unknown>;
  const message = textArg(args, 'message');
  if (message === undefined || message instanceof Error)
    return fail('message is required: the commit message.');
  const got = await findOpenSession(kit, args);
  if ('text' in got) return got;
  const out = await got.backend.commit(workspaceOf(got.session), message, taskCall(kit, signal));
  if (out.notGit)
    return fail(
      `The workspace of coding session ${got.session.id} is not a git repository, so there is nothing to commit to; open a session with repo_url to work in one.`,
    );
  await remember(kit.options.store, got.session, out);
  const ok = out.status === 'completed';
  return answer(
    {
      success: ok,
      message,
      ...(out.git?.commit ? { commit_hash: out.git.commit } : {}),
      ...(out.nothingToCommit ? { nothing_to_commit: true } : {}),
      files_changed: out.filesChanged,
      ...(ok ? {} : { error: out.error ?? out.text }),
    },
    !ok,
  );
}

// ---- coding_push ----

function pushTool(kit: RunKit): LocalTool {
  return {
    name: 'coding_push',
    server: 'coding',
    description: 'Push the commits of the coding session to the remote repository.',
    inputSchema: {
      type: 'object',
      properties: {
        session_id: SESSION_ID,
        remote: { type: 'string', description: 'Remote name (default: origin).' },
        branch: {
          type: 'string',
          description: 'Branch to push (default: the current branch).',
        },
      },
      required: ['session_id'],
      additionalProperties: false,
    },
    execute: (raw, { signal }) => runTool(kit, () => pushCommits(kit, raw, signal)),
  };
}

/** coding_push: the session's commits to a remote, with the git token when there is one. */
async function pushCommits(kit: RunKit, raw: unknown, signal?: AbortSignal): Promise<Answer> {
  const { token } = kit;
  const args = (raw ?? {}) as Record<string, unknown>;
  const remote = textArg(args, 'remote') ?? 'origin';
  const branch = textArg(args, 'branch');
  if (remote instanceof Error || !REF_NAME.test(remote))
    return fail('Invalid arguments for coding_push: remote must be a remote name such as origin.');
  if (branch instanceof Error || (typeof branch === 'string' && !REF_NAME.test(branch)))
    return fail('Invalid arguments for coding_push: branch must be a branch name such as main.');
  const got = await findOpenSession(kit, args);
  if ('text' in got) return got;
  const out = await got.backend.push(
    workspaceOf(got.session),
    { remote, ...(branch ? { branch } : {}), ...(token ? { token } : {}) },
    taskCall(kit, signal),
  );
  if (out.notGit)
    return fail(
      `The workspace of coding session ${got.session.id} is not a git repository, so there is nothing to push.`,
    );
  const ok = out.status === 'completed';
  return answer(
    {
      success: ok,
      remote,
      branch: branch ?? out.git?.branch ?? 'HEAD',
      message: out.text,
      ...(ok ? {} : { error: out.error ?? out.text }),
    },
    !ok,
  );
}

// ---- coding_close ----

function closeTool(kit: RunKit): LocalTool {
  return {
    name: 'coding_close',
    server: 'coding',
    description: 'Close a coding session; the backend cleans up its workspace.',
    inputSchema: {
      type: 'object',
      properties: { session_id: SESSION_ID },
      required: ['session_id'],
      additionalProperties: false,
    },
    execute: (raw) => runTool(kit, () => closeCodingSession(kit, raw)),
  };
}

/** coding_close: the row closed first (once), then the backend asked to clean up. */
async function closeCodingSession(kit: RunKit, raw: unknown): Promise<Answer> {
  const { store, logger } = kit.options;
  const args = (raw ?? {}) as Record<string, unknown>;
  const id = textArg(args, 'session_id');
  if (id === undefined || id instanceof Error)
    return fail('session_id is required: the id coding_open returned.');
  const closed = await store.codingSessions.close(id);
  if (!closed) return fail(`No coding session ${id}; there is nothing to close.`);
  if (!closed.closedNow) return fail(`Coding session ${id} is already closed.`);
  const backend = await kit.options.backend(closed.session.backend);
  await backend.close(workspaceOf(closed.session)).catch((err: unknown) =>
    logger.warn('the coding backend did not clean up a session', {
      session_id: id,
      error: kit.scrub((err as Error).message),
    }),
  );
  kit.ctx.event('coding_event', { session_id: id, type: 'session_closed' });
  logger.info('coding session closed', { session_id: id });
  return answer({ ok: true, session_id: id });
}
