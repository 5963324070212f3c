import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { TelemetryError } from './errors.js';

/** When the file is rotated: over `maxBytes`, keeping `keep` rotated files (`<file>.1` newest). */
export interface FileRotation {
  /** A write that would take the file past this size rotates it first. */
  maxBytes: number;
  /** Rotated files kept: `<file>.1` … `<file>.<keep>`; the oldest is deleted. */
  keep: number;
}

/** 20 MiB, five rotated files: at most 120 MiB of log. */
export const DEFAULT_FILE_ROTATION: FileRotation = { maxBytes: 20 * 1024 * 1024, keep: 5 };

/**
 * Appends each chunk to a file with a synchronous write, so a log line is on disk when the
 * call returns and a CLI that exits right after logging loses nothing; rotates the file by size.
 *
 * Several processes append to one file (the CLI's commands and `junction serve`), so rotation
 * is decided by the file, not by this process: before a write that would pass `maxBytes`, the
 * file the name now points to is looked at. When another process rotated it already, this one
 * reopens the name; otherwise it renames `<file>` to `<file>.1` (the older ones one further)
 * and opens a new `<file>`. A line written to a file just renamed lands in `<file>.1`: nothing
 * is lost. Rotating streams of npm (rotating-file-stream, winston's File) write asynchronously
 * and assume one writer, which is why this one is ours (docs/decisions.md).
 */
export class SyncFileStream extends Writable {
  readonly path: string;
  private readonly rotation: FileRotation;
  private fd: number | undefined;

  constructor(file: string, rotation: FileRotation = DEFAULT_FILE_ROTATION) {
    super();
    this.path = path.resolve(file);
    this.rotation = rotation;
    try {
      fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
      this.fd = this.openFile();
    } catch (cause) {
      throw new TelemetryError(
        'TELEMETRY_LOG_FILE_UNWRITABLE',
        `Cannot open the log file ${this.path} for appending; check that its folder exists and is writable, or choose another file.`,
        { file: this.path },
        { cause: cause },
      );
    }
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    if (this.fd === undefined) {
      callback(new Error(`log file ${this.path} is closed`));
      return;
    }
    try {
      this.makeRoom(chunk.length);
      const fd = this.fd as number;
      // Writable's default decodeStrings makes every chunk a Buffer.
      let offset = 0;
      while (offset < chunk.length) offset += fs.writeSync(fd, chunk, offset);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.closeFd();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closeFd();
    callback(error);
  }

  private openFile(): number {
    // The folder may have been removed since (a cleaned log folder): made again.
    fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    // Owner only, like the rest of the workspace.
    return fs.openSync(this.path, 'a', 0o600);
  }

  /**
   * Before a write of `bytes`: follows the name when another process rotated the file (or it
   * was removed), then rotates when the write would take the file past its limit. A failure
   * to rotate (a folder made read-only, a full disk) is not the line's: the line goes to the
   * file already open, and rotation is tried again at the next write.
   */
  private makeRoom(bytes: number): void {
    try {
      let mine = fs.fstatSync(this.fd as number);
      if (!sameFile(mine, statOrUndefined(this.path))) {
        this.reopen();
        mine = fs.fstatSync(this.fd as number);
      }
      // A line longer than the limit is written whole into a file of its own, never split.
      if (mine.size > 0 && mine.size + bytes > this.rotation.maxBytes) this.rotate();
    } catch {
      this.fd ??= this.openFile();
    }
  }

  /**
   * Rotates: `<file>.n` to `<file>.n+1` (the ones past `keep` deleted), `<file>` to `<file>.1`,
   * and a new `<file>`. The renames happen under `<file>.lock`: two processes shifting the
   * files at once would rename one's new file over the other's rotated one. A process that
   * finds the lock taken writes on and looks again at its next write.
   */
  private rotate(): void {
    const lock = takeLock(`${this.path}.lock`);
    if (lock === undefined) return;
    try {
      // Looked at again under the lock: the holder before us may have rotated just now.
      if (!this.rotatedElsewhere()) {
        const { keep } = this.rotation;
        // Past `keep` (a lower keep than before leaves more): deleted, oldest last.
        for (let n = keep; fs.existsSync(`${this.path}.${n}`); n += 1) {
          fs.rmSync(`${this.path}.${n}`, { force: true });
        }
        // Oldest first, so no rename overwrites a file still to be moved.
        for (let n = keep - 1; n >= 1; n -= 1) {
          renameIfPresent(`${this.path}.${n}`, `${this.path}.${n + 1}`);
        }
        renameIfPresent(this.path, `${this.path}.1`);
      }
      this.reopen();
    } finally {
      lock.release();
    }
  }

  /** True when the name no longer points to the file `fd` writes (rotated, or removed). */
  private rotatedElsewhere(): boolean {
    return !sameFile(fs.fstatSync(this.fd as number), statOrUndefined(this.path));
  }

  private reopen(): void {
    const fd = this.openFile();
    this.closeFd();
    this.fd = fd;
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    fs.closeSync(fd);
  }
}

function sameFile(a: fs.Stats, b: fs.Stats | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.dev === b.dev;
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A rotated file that is not there yet (fewer than `keep` rotations so far) is skipped. */
function renameIfPresent(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A rotation takes microseconds: a lock this old was left by a process killed while holding it. */
const STALE_LOCK_MS = 10_000;

/** A lock this process holds: `release` removes it only while it is still this one. */
interface HeldLock {
  release(): void;
}

/**
 * Takes `lock` (created exclusively, holding a token of this holder), or undefined when another
 * holds it. A lock left by a killed process is taken over once stale: renamed away first, so of
 * two processes that find it stale only one removes it.
 */
function takeLock(lock: string, retry = true): HeldLock | undefined {
  const token = `${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    fs.writeFileSync(lock, token, { flag: 'wx', mode: 0o600 });
    return {
      release: () => {
        if (readOrUndefined(lock) === token) fs.rmSync(lock, { force: true });
      },
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const held = statOrUndefined(lock);
  if (!retry || held === undefined || Date.now() - held.mtimeMs <= STALE_LOCK_MS) return undefined;
  const stale = `${lock}.stale.${token}`;
  try {
    fs.renameSync(lock, stale);
  } catch {
    return undefined; // Another process took it over first.
  }
  fs.rmSync(stale, { force: true });
  return takeLock(lock, false);
}

function readOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
