// Live progress for a person at a terminal: a spinner line on stderr naming what is under way,
// and status words in colour. Both only when the stream is a terminal; colour also not with
// NO_COLOR or --no-color. Output to a pipe stays the plain lines it always was.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** True when status words may be coloured on stdout. */
export function colourOn(noColorFlag = false, env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stdout.isTTY === true && !noColorFlag && (env.NO_COLOR ?? '') === '';
}

const GREEN = new Set(['completed', 'connected', 'synced', 'ok', 'success', 'approved']);
const RED = new Set(['error', 'failed', 'timeout', 'timed_out', 'fail', 'rejected']);
const YELLOW = new Set(['cancelled', 'running', 'queued', 'pending', 'warn', 'waiting_approval']);

/** `word` in its status colour when `on`, else as it is. */
export function paint(word: string, on: boolean): string {
  if (!on) return word;
  const code = GREEN.has(word) ? 32 : RED.has(word) ? 31 : YELLOW.has(word) ? 33 : undefined;
  return code === undefined ? word : `\u001b[${code}m${word}\u001b[39m`;
}

/**
 * A spinner on stderr over what is under way (`start(key, label)` / `done(key)`); lines printed
 * through `line` appear above it. Inactive (every call a plain print or nothing) when stderr is
 * not a terminal or `enabled` is false.
 */
export class Spinner {
  readonly #active = new Map<string, string>();
  readonly #on: boolean;
  readonly #print: (line: string) => void;
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #shown = false;

  constructor(print: (line: string) => void, enabled = true) {
    this.#print = print;
    this.#on = enabled && process.stderr.isTTY === true;
  }

  start(key: string, label: string): void {
    if (!this.#on) return;
    this.#active.set(key, label);
    this.#timer ??= setInterval(() => this.#draw(), 100);
    this.#draw();
  }

  done(key: string): void {
    this.#active.delete(key);
    if (this.#active.size === 0) this.stop();
  }

  /** Prints `text` (stdout) above the spinner. */
  line(text: string): void {
    this.#clear();
    this.#print(text);
    if (this.#active.size > 0) this.#draw();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#active.clear();
    this.#clear();
  }

  #draw(): void {
    if (this.#active.size === 0) return;
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    // A terminal that reports no size (or a tiny one) gets 80 columns.
    const columns = process.stderr.columns;
    const width = (columns !== undefined && columns >= 20 ? columns : 80) - 1;
    const text = `${frame} ${[...this.#active.values()].join(', ')}`;
    process.stderr.write(
      `\r\u001b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`,
    );
    this.#shown = true;
  }

  #clear(): void {
    if (!this.#shown) return;
    process.stderr.write('\r\u001b[2K');
    this.#shown = false;
  }
}

/**
 * Model text as a terminal should show it: line breaks and tabs kept, every other control
 * character (an escape sequence could move the cursor or recolour the screen) dropped.
 */
export function terminalText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}
