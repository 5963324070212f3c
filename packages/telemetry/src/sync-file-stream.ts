import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { TelemetryError } from './errors.js';

/**
 * Appends each chunk to a file with a synchronous write, so a log line is on disk when the
 * call returns and a CLI that exits right after logging loses nothing.
 */
export class SyncFileStream extends Writable {
  readonly path: string;
  private fd: number | undefined;

  constructor(file: string) {
    super();
    this.path = path.resolve(file);
    try {
      fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
      // Owner only, like the rest of the workspace.
      this.fd = fs.openSync(this.path, 'a', 0o600);
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
      // Writable's default decodeStrings makes every chunk a Buffer.
      let offset = 0;
      while (offset < chunk.length) offset += fs.writeSync(this.fd, chunk, offset);
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

  private closeFd(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    fs.closeSync(fd);
  }
}
