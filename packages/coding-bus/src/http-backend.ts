// Direct HTTP mode: Junction talks to an opencode server (`opencode serve`, coding.opencode.url,
// port 4096) — health, create a session, send a message — and holds the workspaces itself under
// coding.workspace_base_path: it clones, commits and pushes there with git, and removes the
// workspaces it made when their session closes.
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { redactUrl, type Logger } from '@junction/telemetry';
import {
  cutText,
  failed,
  writtenFile,
  type CodingBackend,
  type CodingOutcome,
  type CodingWorkspace,
  type OpenOptions,
  type TaskCall,
} from './backend.js';
import { changedFiles, git, gitState } from './git.js';
import type { CodingSettings } from './settings.js';

export interface HttpBackendOptions {
  settings: CodingSettings;
  logger: Logger;
  fetch?: typeof fetch;
}

const HEALTH_TIMEOUT_MS = 3_000;

/** The folder Junction makes for a session under coding.workspace_base_path. */
export function managedWorkspaceName(sessionId: string): string {
  return `junction-${sessionId}`;
}

/** A message part of the opencode server's answer (the fields read here). */
interface Part {
  type?: string;
  text?: string;
  tool?: string;
  callID?: string;
  state?: { status?: string; input?: unknown; output?: string; error?: string };
  // Older servers: tool-invocation / tool-result parts.
  input?: unknown;
  output?: string;
}

interface MessageAnswer {
  info?: {
    tokens?: { input?: number; output?: number };
    error?: { name?: string; data?: { message?: string } };
  };
  parts?: Part[];
}

class ServerError extends Error {
  readonly retry: boolean;
  constructor(message: string, retry: boolean) {
    super(message);
    this.retry = retry;
  }
}

export class HttpCodingBackend implements CodingBackend {
  readonly kind = 'opencode' as const;
  readonly #o: HttpBackendOptions;
  readonly #fetch: typeof fetch;

  constructor(options: HttpBackendOptions) {
    this.#o = options;
    this.#fetch = options.fetch ?? fetch;
  }

  get #base(): string {
    return this.#o.settings.opencodeUrl;
  }

  async problem(): Promise<string | undefined> {
    try {
      const res = await this.#fetch(`${this.#base}/global/health`, {
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
      });
      if (res.ok) return undefined;
      return `The coding server at ${this.#base} answered ${res.status} to its health check; check that it is an opencode server (opencode serve --port 4096).`;
    } catch (err) {
      return this.#unreachable(err);
    }
  }

  #unreachable(err: unknown): string {
    return `The coding server at ${this.#base} is not reachable (${reason(err)}); start it (opencode serve --port 4096) or set coding.opencode.url.`;
  }

  /** One request with a JSON answer; 5xx, a network failure or a time-out may be tried again. */
  async #call<T>(
    method: string,
    route: string,
    body: unknown,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<T> {
    const limit = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${route}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal ? AbortSignal.any([signal, limit]) : limit,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      const timedOut = limit.aborted;
      throw new ServerError(
        timedOut
          ? `no answer from the coding server within ${Math.round(timeoutMs / 1000)} s`
          : this.#unreachable(err),
        true,
      );
    }
    const text = await res.text();
    if (!res.ok) {
      let message = text.slice(0, 500);
      try {
        const parsed = JSON.parse(text) as { data?: { message?: string }; name?: string };
        message = parsed.data?.message ?? parsed.name ?? message;
      } catch {
        // Not JSON: the text itself.
      }
      throw new ServerError(
        `the coding server answered ${res.status}: ${message}`,
        res.status >= 500,
      );
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ServerError('the coding server answered with something that is not JSON', false);
    }
  }

  /** Sends `prompt` to the session; tried again (coding.max_attempts in all) when it may help. */
  async #message(
    workspace: CodingWorkspace,
    prompt: string,
    call: TaskCall,
  ): Promise<CodingOutcome> {
    const started = Date.now();
    const { maxAttempts, taskTimeoutMs } = this.#o.settings;
    const dir = workspace.workspacePath ?? '';
    const route = `/session/${encodeURIComponent(workspace.backendSessionId ?? '')}/message?directory=${encodeURIComponent(dir)}`;
    const event = (e: { type: string; [key: string]: unknown }): void =>
      call.onEvent({ session_id: workspace.sessionId, ...e });
    event({ type: 'prompt_sent', content: cutText(prompt) });
    let answer: MessageAnswer | undefined;
    let attempts = 0;
    for (;;) {
      attempts += 1;
      try {
        answer = await this.#call<MessageAnswer>(
          'POST',
          route,
          { parts: [{ type: 'text', text: prompt }] },
          call.signal,
          taskTimeoutMs,
        );
        break;
      } catch (err) {
        if (call.signal?.aborted)
          return { ...failed('The coding task was cancelled.', 'cancelled'), attempts };
        const retry = err instanceof ServerError && err.retry && attempts < maxAttempts;
        if (!retry) {
          const timedOut = err instanceof ServerError && /no answer/.test(err.message);
          return {
            ...failed(
              `${reason(err)}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
              timedOut ? 'timeout' : 'error',
            ),
            attempts,
            durationMs: Date.now() - started,
          };
        }
        event({
          type: 'task_resent',
          attempt: attempts + 1,
          content: `${reason(err)}; sent again (attempt ${attempts + 1} of ${maxAttempts})`,
        });
      }
    }
    const files = new Set<string>();
    let text = '';
    let toolCalls = 0;
    let pending: { tool: string; input: unknown } | undefined;
    for (const part of answer.parts ?? []) {
      if (part.type === 'text' && part.text) {
        text += (text ? '\n' : '') + part.text;
        event({ type: 'text', content: cutText(part.text) });
      } else if (part.type === 'reasoning' && part.text) {
        event({ type: 'thinking', content: cutText(part.text) });
      } else if (part.type === 'tool' && part.tool) {
        toolCalls += 1;
        const file = writtenFile(part.tool, part.state?.input);
        if (file) files.add(file);
        event({
          type: 'tool_start',
          tool: part.tool,
          ...(part.state?.input ? { args: part.state.input } : {}),
        });
        const failedTool = part.state?.status === 'error';
        event({
          type: 'tool_end',
          tool: part.tool,
          ...(failedTool
            ? { error: cutText(part.state?.error ?? '') }
            : { output: cutText(part.state?.output ?? '') }),
        });
      } else if (part.type === 'tool-invocation' && part.tool) {
        pending = { tool: part.tool, input: part.input };
        event({ type: 'tool_start', tool: part.tool });
      } else if (part.type === 'tool-result' && pending) {
        toolCalls += 1;
        const file = writtenFile(pending.tool, pending.input);
        if (file) files.add(file);
        event({ type: 'tool_end', tool: pending.tool, output: cutText(part.output ?? '') });
        pending = undefined;
      }
    }
    if (dir) for (const file of await changedFiles(dir)) files.add(file);
    const state = dir ? await gitState(dir) : undefined;
    const common = {
      inputTokens: answer.info?.tokens?.input ?? 0,
      outputTokens: answer.info?.tokens?.output ?? 0,
      toolCalls,
      filesChanged: [...files],
      attempts,
      durationMs: Date.now() - started,
      ...(dir ? { workspacePath: dir } : {}),
      ...(state ? { git: state } : {}),
    };
    const error = answer.info?.error;
    if (error) {
      const message = error.data?.message ?? error.name ?? 'the coding assistant failed';
      event({ type: 'error', content: cutText(message) });
      return { ...common, status: 'error', text: message, error: message };
    }
    return { ...common, status: 'completed', text };
  }

  async open(workspace: CodingWorkspace, options: OpenOptions): Promise<CodingOutcome> {
    const started = Date.now();
    const event = (e: { type: string; [key: string]: unknown }): void =>
      options.onEvent({ session_id: workspace.sessionId, ...e });
    const dir = workspace.workspacePath;
    if (!dir) return failed('The session has no workspace path.');
    const exists = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!exists) {
      await mkdir(path.dirname(dir), { recursive: true });
      if (workspace.repoUrl) {
        const args = [
          'clone',
          ...(workspace.branch ? ['--branch', workspace.branch] : []),
          '--',
          workspace.repoUrl,
          dir,
        ];
        const cloned = await git(this.#o.settings.workspaceBasePath, args, {
          ...(options.token ? { token: options.token } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        if (!cloned.ok) {
          await rm(dir, { recursive: true, force: true });
          return failed(`git clone of ${redactUrl(workspace.repoUrl)} failed: ${cloned.stderr}`);
        }
        event({ type: 'workspace_created', content: dir });
        const state = await gitState(dir);
        event({
          type: 'git_clone',
          git: {
            url: redactUrl(workspace.repoUrl),
            ...(state ? { branch: state.branch, commit: state.commit } : {}),
          },
        });
      } else {
        await mkdir(dir, { recursive: true });
        event({ type: 'workspace_created', content: dir });
      }
    } else {
      event({ type: 'workspace_reused', content: dir });
    }
    let session: { id?: string };
    try {
      session = await this.#call<{ id?: string }>(
        'POST',
        `/session?directory=${encodeURIComponent(dir)}`,
        workspace.title ? { title: workspace.title } : {},
        options.signal,
        this.#o.settings.taskTimeoutMs,
      );
    } catch (err) {
      if (!exists) await this.#remove(workspace);
      return failed(`Could not create a session on the coding server: ${reason(err)}`);
    }
    if (typeof session.id !== 'string' || session.id === '') {
      if (!exists) await this.#remove(workspace);
      return failed(
        'The coding server created a session without an id; check that it is an opencode server.',
      );
    }
    event({
      type: 'session_created',
      session: { name: workspace.sessionId, opencodeID: session.id },
    });
    const state = await gitState(dir);
    return {
      status: 'completed',
      text: 'ready',
      workspacePath: dir,
      backendSessionId: session.id,
      ...(state ? { git: state } : {}),
      inputTokens: 0,
      outputTokens: 0,
      toolCalls: 0,
      filesChanged: [],
      attempts: 1,
      durationMs: Date.now() - started,
    };
  }

  code(workspace: CodingWorkspace, prompt: string, call: TaskCall): Promise<CodingOutcome> {
    return this.#message(workspace, prompt, call);
  }

  async commit(
    workspace: CodingWorkspace,
    message: string,
    call: TaskCall,
  ): Promise<CodingOutcome & { notGit?: boolean; nothingToCommit?: boolean }> {
    const started = Date.now();
    const dir = workspace.workspacePath ?? '';
    const before = dir ? await gitState(dir) : undefined;
    if (!before)
      return { ...failed(`The workspace ${dir} is not a git repository.`), notGit: true };
    const files = await changedFiles(dir);
    const signal = call.signal ? { signal: call.signal } : {};
    const added = await git(dir, ['add', '-A'], signal);
    if (!added.ok) return failed(`git add -A failed: ${added.stderr}`);
    const committed = await git(dir, ['commit', '-m', message], signal);
    const after = await gitState(dir);
    const base = {
      inputTokens: 0,
      outputTokens: 0,
      toolCalls: 0,
      attempts: 1,
      durationMs: Date.now() - started,
      workspacePath: dir,
      ...(after ? { git: after } : {}),
    };
    if (!committed.ok) {
      const said = `${committed.stdout}\n${committed.stderr}`.trim();
      if (/nothing to commit/i.test(said))
        return {
          ...base,
          status: 'completed',
          text: 'nothing to commit, working tree clean',
          filesChanged: [],
          nothingToCommit: true,
        };
      return {
        ...base,
        status: 'error',
        text: `git commit failed: ${said}`,
        error: `git commit failed: ${said}`,
        filesChanged: [],
      };
    }
    call.onEvent({
      session_id: workspace.sessionId,
      type: 'git_commit',
      git: after ? { branch: after.branch, commit: after.commit } : {},
      content: committed.stdout.split('\n')[0] ?? '',
    });
    return { ...base, status: 'completed', text: committed.stdout, filesChanged: files };
  }

  async push(
    workspace: CodingWorkspace,
    target: { remote: string; branch?: string; token?: string },
    call: TaskCall,
  ): Promise<CodingOutcome & { notGit?: boolean }> {
    const started = Date.now();
    const dir = workspace.workspacePath ?? '';
    const state = dir ? await gitState(dir) : undefined;
    if (!state) return { ...failed(`The workspace ${dir} is not a git repository.`), notGit: true };
    const branch = target.branch ?? state.branch;
    const pushed = await git(dir, ['push', target.remote, branch], {
      ...(target.token ? { token: target.token } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    const said = `${pushed.stdout}\n${pushed.stderr}`.trim();
    const base = {
      inputTokens: 0,
      outputTokens: 0,
      toolCalls: 0,
      filesChanged: [],
      attempts: 1,
      durationMs: Date.now() - started,
      workspacePath: dir,
      git: state,
    };
    if (!pushed.ok)
      return {
        ...base,
        status: 'error',
        text: `git push ${target.remote} ${branch} failed: ${said}`,
        error: `git push failed: ${said}`,
      };
    call.onEvent({
      session_id: workspace.sessionId,
      type: 'git_push',
      content: said.split('\n')[0] ?? '',
      git: { branch, commit: state.commit },
    });
    return { ...base, status: 'completed', text: said || `pushed ${branch} to ${target.remote}` };
  }

  async close(workspace: CodingWorkspace): Promise<void> {
    if (workspace.backendSessionId) {
      await this.#call(
        'DELETE',
        `/session/${encodeURIComponent(workspace.backendSessionId)}`,
        undefined,
        undefined,
        HEALTH_TIMEOUT_MS,
      ).catch((err: unknown) =>
        this.#o.logger.warn('the coding server did not delete a session', {
          session_id: workspace.sessionId,
          error: reason(err),
        }),
      );
    }
    await this.#remove(workspace);
  }

  /** Removes the workspace when Junction made it (never a folder the agent named). */
  async #remove(workspace: CodingWorkspace): Promise<void> {
    const mine = path.join(
      this.#o.settings.workspaceBasePath,
      managedWorkspaceName(workspace.sessionId),
    );
    if (workspace.workspacePath === mine) await rm(mine, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    // Nothing held: each call is its own request.
  }
}

function reason(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
