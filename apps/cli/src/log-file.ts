// Reads the service log: JSON lines written by @junction/telemetry's logger (spec §6.5).
import { open, stat, type FileHandle } from 'node:fs/promises';

/** Most severe first, as `log_level` orders them. */
export const LOG_LEVEL_NAMES = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

/** One record of the log file: `level`, `ts`, `msg` and free fields (`agent_name`, `run_id` …). */
export interface LogFileRecord {
  level: string;
  ts: string;
  msg: string;
  [field: string]: unknown;
}

export interface LogFilter {
  /** This level and the more severe ones. */
  level?: LogLevelName;
  /** Only records whose `agent_name` is this. */
  agent?: string;
}

/** The record on this line, or undefined for a line that is not a JSON log record. */
export function parseLogLine(line: string): LogFileRecord | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const r = value as Record<string, unknown>;
    return {
      ...r,
      level: typeof r.level === 'string' ? r.level : 'info',
      ts: typeof r.ts === 'string' ? r.ts : '',
      msg: typeof r.msg === 'string' ? r.msg : '',
    };
  } catch {
    return undefined;
  }
}

/** True when the record passes the level and agent filters. */
export function matchesLogFilter(record: LogFileRecord, filter: LogFilter): boolean {
  if (filter.level !== undefined) {
    const rank = LOG_LEVEL_NAMES.indexOf(record.level as LogLevelName);
    if (rank === -1 || rank > LOG_LEVEL_NAMES.indexOf(filter.level)) return false;
  }
  if (filter.agent !== undefined && record.agent_name !== filter.agent) return false;
  return true;
}

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * The last `count` records of `file` that pass `filter`, oldest first, read backwards in
 * chunks so a large log costs only what is shown; undefined when the file does not exist.
 * When the file holds fewer (it was just rotated), the rest come from the file before it:
 * `<file>.1`, or `<file>.2` when a rotation moved the file just read to `.1` meanwhile (its
 * lines are not shown twice). `size` and `inode` say where the reading stopped in which file,
 * for a follower to start from.
 */
export async function readLastRecords(
  file: string,
  count: number,
  filter: LogFilter,
): Promise<{ records: LogFileRecord[]; size: number; inode: number } | undefined> {
  const last = await readBackwards(file, count, filter);
  if (last === undefined) return undefined;
  for (const older of [`${file}.1`, `${file}.2`]) {
    if (last.records.length >= count) break;
    const before = await readBackwards(older, count - last.records.length, filter);
    if (before === undefined) break;
    if (before.inode === last.inode) continue;
    last.records.push(...before.records);
    break;
  }
  return { records: last.records.reverse(), size: last.size, inode: last.inode };
}

/** The last `count` records of `file` that pass `filter`, newest first; undefined when it does not exist. */
async function readBackwards(
  file: string,
  count: number,
  filter: LogFilter,
): Promise<{ records: LogFileRecord[]; size: number; inode: number } | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { size, ino } = await handle.stat();
    const found: LogFileRecord[] = [];
    let pos = size;
    // The start of a line that began before `pos` (the part read so far, without its newline).
    let carry = Buffer.alloc(0);
    while (pos > 0 && found.length < count) {
      const len = Math.min(CHUNK, pos);
      pos -= len;
      const chunk = Buffer.alloc(len);
      await handle.read(chunk, 0, len, pos);
      const data = Buffer.concat([chunk, carry]);
      const firstNewline = data.indexOf(NEWLINE);
      if (pos > 0 && firstNewline === -1) {
        carry = data;
        continue;
      }
      const whole = pos > 0 ? data.subarray(firstNewline + 1) : data;
      carry = pos > 0 ? data.subarray(0, firstNewline) : Buffer.alloc(0);
      const lines = whole.toString('utf8').split('\n');
      for (let i = lines.length - 1; i >= 0 && found.length < count; i--) {
        const record = parseLogLine(lines[i] ?? '');
        if (record && matchesLogFilter(record, filter)) found.push(record);
      }
    }
    return { records: found, size, inode: ino };
  } finally {
    await handle.close();
  }
}

export interface LogFollowerOptions {
  /** Byte offset to start at (the end of what was already shown). */
  offset: number;
  /** The file `offset` is in; another file found at the path is read from its start. */
  inode?: number;
  /** How often to look at the file. */
  pollMs?: number;
  onLine: (line: string) => void;
}

/** The file being followed: held open, so what it gains is read even once rotation renamed it. */
interface HeldFile {
  handle: FileHandle;
  inode: number;
}

/**
 * Polls `file` for appended lines. Survives the file not existing yet, being truncated
 * (starts again at 0) and being replaced by rotation: the file it read is held open, so the
 * lines written to it after the last look and before the rename are read too, then the new
 * file from its start. Each line is delivered once.
 */
export class LogFollower {
  readonly #file: string;
  readonly #pollMs: number;
  readonly #onLine: (line: string) => void;
  #offset: number;
  #offsetInode: number | undefined;
  #held: HeldFile | undefined;
  #partial = Buffer.alloc(0);
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(file: string, options: LogFollowerOptions) {
    this.#file = file;
    this.#offset = options.offset;
    this.#offsetInode = options.inode;
    this.#pollMs = options.pollMs ?? 200;
    this.#onLine = options.onLine;
  }

  /** Starts polling; the first look happens at once. */
  start(): void {
    void this.#tick();
  }

  /** Stops polling; no line is delivered afterwards. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    void this.#held?.handle.close().catch(() => undefined);
    this.#held = undefined;
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#poll();
    } catch {
      // A read racing a rotation fails now and succeeds on the next look.
    }
    if (!this.#stopped) this.#timer = setTimeout(() => void this.#tick(), this.#pollMs);
  }

  async #poll(): Promise<void> {
    let info;
    try {
      info = await stat(this.#file);
    } catch (err) {
      // Gone (rotated away, not created yet): the file that appears next is read from its start.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // The rest of the file read so far, wherever a rotation moved it. Read after the look at
    // the path, so whatever was written to it before a rotation that look saw is read too.
    if (this.#held) await this.#readNew(this.#held);
    if (info === undefined || this.#stopped || info.ino === this.#held?.inode) return;
    // A file not read yet: the first one (from the offset given, when it is the file the
    // offset is in) or the one a rotation made (from its start).
    if (this.#held) await this.#held.handle.close();
    if (this.#held || (this.#offsetInode !== undefined && this.#offsetInode !== info.ino)) {
      this.#offset = 0;
      this.#partial = Buffer.alloc(0);
    }
    const held = { handle: await open(this.#file, 'r'), inode: info.ino };
    if (this.#stopped) {
      await held.handle.close();
      return;
    }
    this.#held = held;
    await this.#readNew(held);
  }

  /** Delivers the whole lines `held` gained since the offset (from 0 when it was truncated). */
  async #readNew(held: HeldFile): Promise<void> {
    const { size } = await held.handle.stat();
    if (size < this.#offset) {
      this.#offset = 0;
      this.#partial = Buffer.alloc(0);
    }
    if (size === this.#offset) return;
    const len = size - this.#offset;
    const buf = Buffer.alloc(len);
    const { bytesRead } = await held.handle.read(buf, 0, len, this.#offset);
    this.#offset += bytesRead;
    const data = Buffer.concat([this.#partial, buf.subarray(0, bytesRead)]);
    const last = data.lastIndexOf(NEWLINE);
    this.#partial = last === -1 ? data : data.subarray(last + 1);
    if (last === -1) return;
    for (const line of data.subarray(0, last).toString('utf8').split('\n')) {
      if (this.#stopped) return;
      if (line.trim() !== '') this.#onLine(line);
    }
  }
}
