import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes `text` to `file` through a temp file in the same folder and a rename, so readers never see half a file. Owner-only (0600): workspace files may hold keys. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temp, text, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
