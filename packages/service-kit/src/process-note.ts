// A note a live process leaves in the workspace's config folder so other commands of the same
// workspace find what it serves (the trace receiver, the webhook port): `{pid, url}`, written
// whole (a temporary file renamed), trusted only while that process lives, removed only by it.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from '@junction/agent-core/runs';
import { writeFileAtomicSync } from '@junction/config-templates';

/** The URL in note `file`, when the process that left it is still alive. */
export function readProcessNote(file: string): string | undefined {
  try {
    const note = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown; url?: unknown };
    if (typeof note.pid !== 'number' || typeof note.url !== 'string') return undefined;
    return processAlive(note.pid) ? note.url : undefined;
  } catch {
    return undefined;
  }
}

/** Leaves this process's note at `file`; throws what the file system said when it cannot. */
export function leaveProcessNote(file: string, url: string): void {
  writeFileAtomicSync(file, `${JSON.stringify({ pid: process.pid, url })}\n`);
}

/** Removes the note at `file` if this process left it (another may have taken it over since). */
export function removeProcessNote(file: string): void {
  try {
    const note = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
    if (note.pid === process.pid) rmSync(file, { force: true });
  } catch {
    // No note, or not ours.
  }
}

/** The path of note `name` in config folder `configHome`. */
export function notePath(configHome: string, name: string): string {
  return path.join(configHome, name);
}
