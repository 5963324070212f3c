// Files replaced whole: written to a temp file in the same folder and renamed over the target,
// so a reader never sees half a file. Owner-only (0600): workspace files may hold keys.
// (npm's write-file-atomic does the same; its versions that are maintained need Node 20.17 or
// 22, above Junction's floor — docs/decisions.md.)
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A temp file beside `file` that no other writer (process or call) can pick too. */
function tempFileOf(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
}

/** Writes `text` to `file` atomically (see the file's header). */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temp = tempFileOf(file);
  try {
    await writeFile(temp, text, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** `writeFileAtomic` for code that must not yield: a process note left just before exit. */
export function writeFileAtomicSync(file: string, text: string): void {
  const temp = tempFileOf(file);
  try {
    writeFileSync(temp, text, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
