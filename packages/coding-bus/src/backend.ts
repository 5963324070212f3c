// What a coding backend does for the coding tools, whichever way it is reached: tasks over the
// NATS bus to a backend that speaks the opencode plugin's protocol (nats-backend.ts), or direct
// HTTP to an opencode server with a workspace Junction holds itself (http-backend.ts).

/** `coding.backend`. */
export type CodingBackendKind = 'opencode-nats' | 'opencode';

/** A session as a backend needs it (the store's row, narrowed). */
export interface CodingWorkspace {
  /** Junction's session id; also the backend's session name. */
  sessionId: string;
  /** The workspace's name at the backend (a folder name there). */
  workspaceName: string;
  /** Its path where it is, once known. */
  workspacePath: string | null;
  /** The coding server's own session id, once known. */
  backendSessionId: string | null;
  repoUrl: string | null;
  branch: string | null;
  title: string | null;
}

/** One progress event of a task, as it is recorded (`coding_event`) and shown live. */
export interface CodingProgress {
  session_id: string;
  /** The protocol's event type (`tool_start`, `text`, …). */
  type: string;
  content?: string;
  tool?: string;
  /** Task attempt (a task sent again after a timeout counts up). */
  attempt?: number;
  [key: string]: unknown;
}

export interface TaskCall {
  signal?: AbortSignal;
  onEvent(event: CodingProgress): void;
}

/** How one task ended. */
export interface CodingOutcome {
  status: 'completed' | 'error' | 'timeout' | 'cancelled';
  /** The assistant's answer (completed) or what went wrong. */
  text: string;
  error?: string;
  workspacePath?: string;
  backendSessionId?: string;
  git?: { branch: string; commit: string; dirty: boolean };
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  /** Files the task wrote, as far as the backend tells. */
  filesChanged: string[];
  /** Sends of the task (more than one after a timeout). */
  attempts: number;
  durationMs: number;
}

export interface OpenOptions extends TaskCall {
  /** The git token for a clone of an https repository. */
  token?: string;
}

export interface CodingBackend {
  readonly kind: CodingBackendKind;
  /** Why the backend cannot take work now (what a tool answers), undefined when it can. */
  problem(): Promise<string | undefined>;
  /** Makes the workspace (cloning the repository when there is one) and the backend session. */
  open(workspace: CodingWorkspace, options: OpenOptions): Promise<CodingOutcome>;
  /** Hands the assistant one instruction in the session's workspace. */
  code(workspace: CodingWorkspace, prompt: string, call: TaskCall): Promise<CodingOutcome>;
  /** Stages everything and commits; `notGit` when the workspace is no git repository. */
  commit(
    workspace: CodingWorkspace,
    message: string,
    call: TaskCall,
  ): Promise<CodingOutcome & { notGit?: boolean; nothingToCommit?: boolean }>;
  push(
    workspace: CodingWorkspace,
    target: { remote: string; branch?: string; token?: string },
    call: TaskCall,
  ): Promise<CodingOutcome & { notGit?: boolean }>;
  /** Ends the session at the backend; the backend (or Junction, for its own) cleans up. */
  close(workspace: CodingWorkspace): Promise<void>;
  /** Stops what the backend started (the bus, its connection). */
  stop(): Promise<void>;
}

/** Longest text of one progress event that is recorded. */
const MAX_EVENT_TEXT = 2_000;

/** `text` cut to what a progress event keeps. */
export function cutText(text: string): string {
  return text.length <= MAX_EVENT_TEXT ? text : `${text.slice(0, MAX_EVENT_TEXT)}…`;
}

/** An outcome that is only an error (nothing was done). */
export function failed(text: string, status: CodingOutcome['status'] = 'error'): CodingOutcome {
  return {
    status,
    text,
    error: text,
    inputTokens: 0,
    outputTokens: 0,
    toolCalls: 0,
    filesChanged: [],
    attempts: 0,
    durationMs: 0,
  };
}

/** Tools whose calls write a file, and where their arguments name it (opencode's tools). */
const WRITING_TOOLS = new Set(['write', 'edit', 'multiedit', 'patch']);

/** The file a tool call writes, when it is a writing tool whose arguments say which. */
export function writtenFile(tool: string, args: unknown): string | undefined {
  if (!WRITING_TOOLS.has(tool) || typeof args !== 'object' || args === null) return undefined;
  const a = args as Record<string, unknown>;
  const file = a.filePath ?? a.file_path ?? a.path;
  return typeof file === 'string' ? file : undefined;
}
