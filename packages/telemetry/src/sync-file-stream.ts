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
        { details: { file: this.path }, cause },
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
      const size = fs.fstatSync(this.fd).size;
      // A line longer than the limit is written whole into a file of its own, never split.
      if (size > 0 && size + chunk.length > this.rotation.maxBytes) this.rotate();
      const fd = this.fd;
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
    // Owner only, like the rest of the workspace.
    return fs.openSync(this.path, 'a', 0o600);
  }

  /**
   * Makes `fd` a file with room: the one another process rotated to, or a new one. The renames
   * happen under `<file>.lock` (created exclusively): two processes shifting the files at once
   * would rename one's new file over the other's rotated one. A process that finds the lock
   * taken writes on and looks again at its next write.
   */
  private rotate(): void {
    if (this.rotatedElsewhere()) {
      this.reopen();
      return;
    }
    const lock = `${this.path}.lock`;
    if (!takeLock(lock)) return;
    try {
      // Looked at again under the lock: the holder before us may have rotated just now.
      if (!this.rotatedElsewhere()) {
        const { keep } = this.rotation;
        // Oldest first, so no rename overwrites a file still to be moved.
        fs.rmSync(`${this.path}.${keep}`, { force: true });
        for (let n = keep - 1; n >= 1; n -= 1) {
          renameIfPresent(`${this.path}.${n}`, `${this.path}.${n + 1}`);
        }
        renameIfPresent(this.path, `${this.path}.1`);
      }
      this.reopen();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }

  /** True when the name no longer points to the file `fd` writes (rotated, or removed). */
  private rotatedElsewhere(): boolean {
    const mine = fs.fstatSync(this.fd as number);
    const current = statOrUndefined(this.path);
    return current === undefined || current.ino !== mine.ino || current.dev !== mine.dev;
  }

  private reopen(): void {
    this.closeFd();
    this.fd = this.openFile();
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    fs.closeSync(fd);
  }
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

/** True when this process created `lock`; false when another holds it. */
function takeLock(lock: string): boolean {
  try {
    fs.closeSync(fs.openSync(lock, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const held = statOrUndefined(lock);
  if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
    fs.rmSync(lock, { force: true });
    return takeLock(lock);
  }
  return false;
}
