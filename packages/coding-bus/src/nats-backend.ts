// The bus backend: every session operation is a task of the opencode plugin's protocol, sent on
// coding.nats.subjects.task and followed to its result (task-client.ts). Session state is the
// plugin's: the `opencode-sessions` key-value bucket, read and cleared here on close.
import { randomUUID } from 'node:crypto';
import { Kvm, type KV } from '@nats-io/kv';
import type { Logger } from '@junction/telemetry';
import {
  cutText,
  failed,
  writtenFile,
  type CodingBackend,
  type CodingOutcome,
  type CodingProgress,
  type CodingWorkspace,
  type OpenOptions,
  type TaskCall,
} from './backend.js';
import { openCodingBus, type CodingBus } from './bus.js';
import { commitPrompt, openPrompt, pushPrompt } from './prompts.js';
import type { CodingStreamEvent, CodingTask } from './protocol.js';
import type { CodingSettings } from './settings.js';
import { sendCodingTask } from './task-client.js';

/** The plugin's buckets (its DEFAULT_CONFIG.kv). */
export const SESSIONS_BUCKET = 'opencode-sessions';
export const STATE_BUCKET = 'opencode-state';

/** How long after a failed start the bus is tried again, at the earliest. */
const REOPEN_AFTER_MS = 5_000;

export interface NatsBackendOptions {
  settings: CodingSettings;
  logger: Logger;
  /** JetStream storage of an embedded server. */
  storeDir: string;
}

type Extra = Pick<CodingTask, 'workspace'>['workspace']['git'];

export class NatsCodingBackend implements CodingBackend {
  readonly kind = 'opencode-nats' as const;
  readonly #o: NatsBackendOptions;
  #bus: Promise<CodingBus> | undefined;
  #openedAt = 0;
  /** Buckets opened on the current bus connection (a reopened bus starts afresh). */
  #buckets = new Map<string, Promise<KV>>();

  constructor(options: NatsBackendOptions) {
    this.#o = options;
  }

  /** Starts (or connects to) the bus now; failures are logged and kept for problem(). */
  async start(): Promise<CodingBus> {
    return this.#ensure();
  }

  /** The bus, opened again when the last try failed a while ago. */
  async #ensure(): Promise<CodingBus> {
    const current = this.#bus ? await this.#bus : undefined;
    if (current && (current.ok || Date.now() - this.#openedAt < REOPEN_AFTER_MS)) return current;
    this.#openedAt = Date.now();
    this.#buckets.clear();
    this.#bus = openCodingBus({
      url: this.#o.settings.nats.url,
      storeDir: this.#o.storeDir,
      logger: this.#o.logger,
      ...(this.#o.settings.nats.serverPath ? { serverPath: this.#o.settings.nats.serverPath } : {}),
    });
    return this.#bus;
  }

  async problem(): Promise<string | undefined> {
    const bus = await this.#ensure();
    if (!bus.ok) return `Failed to create NATS backend: ${bus.error.message}`;
    if (bus.connection.isClosed())
      return `The coding bus connection to ${bus.url} is closed; restart Junction.`;
    return undefined;
  }

  async #task(
    workspace: CodingWorkspace,
    prompt: string,
    call: TaskCall,
    git?: Extra,
  ): Promise<CodingOutcome> {
    const bus = await this.#ensure();
    if (!bus.ok) return failed(`Failed to create NATS backend: ${bus.error.message}`);
    const started = Date.now();
    const files = new Set<string>();
    let attempts = 0;
    const emit = (event: CodingStreamEvent): void => {
      if (event.type === 'tool_start' && event.tool) {
        const file = writtenFile(event.tool.name, event.tool.args);
        if (file) files.add(file);
      }
      call.onEvent(progressOf(workspace.sessionId, event, attempts));
    };
    const result = await sendCodingTask(
      bus.connection,
      {
        taskID: randomUUID(),
        session: { name: workspace.sessionId, continue: true },
        workspace: { name: workspace.workspaceName, ...(git ? { git } : {}) },
        prompt,
      },
      {
        subjects: this.#o.settings.nats.subjects,
        timeoutMs: this.#o.settings.taskTimeoutMs,
        maxAttempts: this.#o.settings.maxAttempts,
        logger: this.#o.logger,
        onEvent: emit,
        onAttempt: (attempt) => {
          attempts = attempt;
          if (attempt > 1)
            call.onEvent({
              session_id: workspace.sessionId,
              type: 'task_resent',
              attempt,
              content: `no result in time; sent again (attempt ${attempt} of ${this.#o.settings.maxAttempts})`,
            });
        },
        ...(call.signal ? { signal: call.signal } : {}),
      },
    );
    return {
      status: result.status,
      text: result.status === 'completed' ? (result.result ?? '') : (result.error ?? result.status),
      ...(result.error ? { error: result.error } : {}),
      ...(result.workspace.path ? { workspacePath: result.workspace.path } : {}),
      ...(result.session.opencodeID ? { backendSessionId: result.session.opencodeID } : {}),
      ...(result.workspace.git ? { git: result.workspace.git } : {}),
      inputTokens: result.metrics.promptTokens ?? 0,
      outputTokens: result.metrics.completionTokens ?? 0,
      toolCalls: result.metrics.toolCalls,
      filesChanged: [...files],
      attempts,
      durationMs: Date.now() - started,
    };
  }

  #git(workspace: CodingWorkspace): Extra {
    return workspace.repoUrl
      ? {
          url: workspace.repoUrl,
          ...(workspace.branch ? { branch: workspace.branch } : {}),
          pull: false,
        }
      : undefined;
  }

  async open(workspace: CodingWorkspace, options: OpenOptions): Promise<CodingOutcome> {
    let git = this.#git(workspace);
    if (git && options.token) {
      if (this.#o.settings.git.fromKv) {
        const key = tokenKey(workspace.sessionId);
        const stored = await this.#bucket(STATE_BUCKET, async (kv) => kv.put(key, options.token!));
        if (stored === undefined)
          return failed(
            'The git token could not be stored in the opencode-state bucket of the coding bus; check that JetStream is enabled on it.',
          );
        git = { ...git, tokenFromKV: key };
      } else {
        git = { ...git, token: options.token };
      }
    }
    return this.#task(workspace, openPrompt(workspace.title), options, git);
  }

  code(workspace: CodingWorkspace, prompt: string, call: TaskCall): Promise<CodingOutcome> {
    return this.#task(workspace, prompt, call, this.#git(workspace));
  }

  async commit(
    workspace: CodingWorkspace,
    message: string,
    call: TaskCall,
  ): Promise<CodingOutcome & { notGit?: boolean; nothingToCommit?: boolean }> {
    const out = await this.#task(workspace, commitPrompt(message), call);
    if (notGit(out)) return { ...out, notGit: true };
    if (out.status !== 'completed') return out;
    return { ...out, nothingToCommit: /nothing to commit/i.test(out.text) };
  }

  async push(
    workspace: CodingWorkspace,
    target: { remote: string; branch?: string },
    call: TaskCall,
  ): Promise<CodingOutcome & { notGit?: boolean }> {
    const out = await this.#task(workspace, pushPrompt(target.remote, target.branch), call);
    return notGit(out) ? { ...out, notGit: true } : out;
  }

  async close(workspace: CodingWorkspace): Promise<void> {
    await this.#bucket(SESSIONS_BUCKET, (kv) => kv.delete(workspace.sessionId));
    if (this.#o.settings.git.fromKv)
      await this.#bucket(STATE_BUCKET, (kv) => kv.delete(tokenKey(workspace.sessionId)));
  }

  /** The plugin's session state of a session, when the bucket has it. */
  async sessionState(sessionId: string): Promise<Record<string, unknown> | undefined> {
    const entry = await this.#bucket(SESSIONS_BUCKET, (kv) => kv.get(sessionId));
    if (!entry || entry.operation !== 'PUT') return undefined;
    try {
      return entry.json<Record<string, unknown>>();
    } catch {
      return undefined;
    }
  }

  /** Runs `use` on a bucket (created when missing); undefined when the bus or JetStream fails. */
  async #bucket<T>(name: string, use: (kv: KV) => Promise<T>): Promise<T | undefined> {
    const bus = await this.#ensure();
    if (!bus.ok) return undefined;
    try {
      let kv = this.#buckets.get(name);
      if (!kv) {
        kv = new Kvm(bus.connection).create(name);
        this.#buckets.set(name, kv);
      }
      return await use(await kv);
    } catch (err) {
      this.#buckets.delete(name);
      this.#o.logger.warn('coding bus key-value bucket not usable', {
        bucket: name,
        error: (err as Error).message,
      });
      return undefined;
    }
  }

  async stop(): Promise<void> {
    const bus = this.#bus ? await this.#bus : undefined;
    this.#bus = undefined;
    await bus?.close();
  }
}

/**
 * Whether a task's workspace is no git repository: a completed task reports git state for a
 * repository, and git itself says so when a command failed for that reason.
 */
function notGit(out: CodingOutcome): boolean {
  if (out.git) return false;
  return out.status === 'completed' || /not a git repository/i.test(out.error ?? out.text);
}

/** The `opencode-state` key of a session's git token (task field tokenFromKV). */
function tokenKey(sessionId: string): string {
  return `git-token.${sessionId}`;
}

/** A stream event as Junction records it. */
function progressOf(sessionId: string, event: CodingStreamEvent, attempt: number): CodingProgress {
  const out: CodingProgress = { session_id: sessionId, type: event.type, seq: event.seq };
  if (attempt > 1) out.attempt = attempt;
  const content = event.content === undefined ? undefined : cutText(event.content);
  if (content !== undefined) out.content = content;
  if (event.tool) {
    out.tool = event.tool.name;
    if (event.tool.args) out.args = event.tool.args;
    const output = event.tool.output === undefined ? undefined : cutText(event.tool.output);
    if (output !== undefined) out.output = output;
    if (event.tool.duration !== undefined) out.duration_ms = event.tool.duration;
  }
  if (event.git) out.git = event.git;
  return out;
}
