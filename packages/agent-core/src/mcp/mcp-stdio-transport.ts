// The SDK's stdio client transport, watched: it remembers how the child exited and the tail of
// its stderr, so a failure can say why a server died, and it can kill a wedged child.
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** How a child process ended: an exit code, or the signal that killed it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of WatchedStdioTransport: what to start and where. */
export interface WatchedStdioOptions {
  command: string;
  args?: string[];
  /** Merged over the SDK's safe default environment (PATH, HOME, ...) by the SDK itself. */
  env?: Record<string, string>;
  cwd?: string;
  /** How much of the end of stderr to keep, in characters. Default 4096. */
  stderrTailChars?: number;
}

const DEFAULT_TAIL_CHARS = 4096;

/** A StdioClientTransport that records the child's exit and keeps the end of its stderr. */
export class WatchedStdioTransport extends StdioClientTransport {
  private tail = '';
  private readonly tailChars: number;
  private readonly decoder = new StringDecoder('utf8');
  private exitStatus: ChildExit | undefined;
  private childPid: number | null = null;
  private readonly exitListeners = new Set<(exit: ChildExit) => void>();
  private resolveExited!: () => void;
  private resolveStderrEnded!: () => void;
  /** Settles once the child has exited, or at once if it never started. */
  readonly exited: Promise<void>;
  /** Settles once the child's stderr has ended (everything it wrote has been read). */
  readonly stderrEnded: Promise<void>;

  constructor(options: WatchedStdioOptions) {
    super({
      command: options.command,
      args: options.args ?? [],
      env: options.env ?? {},
      cwd: options.cwd,
      stderr: 'pipe',
    });
    this.tailChars = options.stderrTailChars ?? DEFAULT_TAIL_CHARS;
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.stderrEnded = new Promise((resolve) => (this.resolveStderrEnded = resolve));
    // Read stderr from the start: an unread pipe fills up and blocks a chatty child.
    const stderr = this.stderr;
    if (stderr !== null) {
      stderr.on('data', (chunk: Buffer) => this.append(this.decoder.write(chunk)));
      stderr.on('end', () => {
        this.append(this.decoder.end());
        this.resolveStderrEnded();
      });
      stderr.on('error', () => this.resolveStderrEnded());
    } else {
      this.resolveStderrEnded();
    }
  }

  override async start(): Promise<void> {
    try {
      await super.start();
    } catch (error) {
      // Spawning failed (command not found, cwd missing): there is no child to wait for.
      this.resolveExited();
      this.resolveStderrEnded();
      throw error;
    }
    // The SDK keeps the child private and drops its exit code; the exit code is what tells an
    // operator why a server died, so read it here. Without the field we only lose the code.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    if (child === undefined) {
      this.resolveExited();
      return;
    }
    this.childPid = child.pid ?? null;
    if (child.exitCode !== null || child.signalCode !== null) {
      this.recordExit({ code: child.exitCode, signal: child.signalCode });
    } else {
      child.once('exit', (code, signal) => this.recordExit({ code, signal }));
    }
  }

  /** The pid of the child this transport started (kept after it exits), or null before start. */
  get childProcessId(): number | null {
    return this.childPid;
  }

  /** How the child exited, or undefined while it runs. */
  get exit(): ChildExit | undefined {
    return this.exitStatus;
  }

  /** The last few KB the child wrote to stderr. */
  stderrTail(): string {
    return this.tail;
  }

  /** Calls `listener` once when the child exits (at once if it already has). */
  onExit(listener: (exit: ChildExit) => void): void {
    if (this.exitStatus !== undefined) listener(this.exitStatus);
    else this.exitListeners.add(listener);
  }

  /** Sends `signal` to the child if it still runs. */
  kill(signal: NodeJS.Signals): void {
    if (this.childPid === null || this.exitStatus !== undefined) return;
    try {
      process.kill(this.childPid, signal);
    } catch {
      // Already gone.
    }
  }

  /** Waits until the child has exited, killing it with SIGKILL if it outlives `graceMs`. */
  async waitForExit(graceMs: number): Promise<void> {
    if (this.childPid === null) return;
    if (await settlesWithin(this.exited, graceMs)) return;
    this.kill('SIGKILL');
    await settlesWithin(this.exited, graceMs);
  }

  private append(text: string): void {
    if (text.length === 0) return;
    this.tail = (this.tail + text).slice(-this.tailChars);
  }

  private recordExit(exit: ChildExit): void {
    if (this.exitStatus !== undefined) return;
    this.exitStatus = exit;
    this.resolveExited();
    for (const listener of this.exitListeners) listener(exit);
    this.exitListeners.clear();
  }
}

/** True when `promise` settles within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const MAX_REASON_CHARS = 300;

/**
 * The line of a stderr tail that best says why a process died: the last line, skipping Node's
 * trailing `Node.js v20…` banner and stack frames, so a crash reads `Error: boom`.
 */
export function stderrReason(tail: string): string | undefined {
  const lines = tail
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  while (lines.length > 1) {
    const last = lines[lines.length - 1] as string;
    if (/^Node\.js v\d/.test(last) || /^at\s/.test(last)) lines.pop();
    else break;
  }
  const reason = lines[lines.length - 1];
  if (reason === undefined) return undefined;
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
}

/** "code 3" or "signal SIGKILL", for messages. */
export function describeExit(exit: ChildExit): string {
  if (exit.signal !== null) return `signal ${exit.signal}`;
  return `code ${exit.code ?? 'unknown'}`;
}
