// Two small files in the workspace folder: the key `junction auth login` stored (0600, only the
// owner can read it), and the management channel's last known state, written by the process
// holding the channel and read by `junction auth status`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '@junction/config-templates';
import { z } from 'zod';

export const LOGIN_FILE = 'management-login.json';
export const STATUS_FILE = 'management-status.json';

const loginSchema = z.object({
  api_key: z.string().min(1),
  endpoint: z.string(),
  saved_at: z.string(),
  org_id: z.string().optional(),
  station_id: z.string().optional(),
  station_name: z.string().optional(),
});
export type StoredLogin = z.infer<typeof loginSchema>;

const statusSchema = z.object({
  state: z.enum(['connecting', 'connected', 'error', 'stopped']),
  platform: z.string(),
  station_name: z.string(),
  station_id: z.string().optional(),
  org_id: z.string().optional(),
  key_source: z.enum(['config', 'login']).optional(),
  last_sync_at: z.string().optional(),
  error: z.string().optional(),
  pid: z.number(),
  updated_at: z.string(),
});
export type StatusRecord = z.infer<typeof statusSchema>;

/** Writes `value` as JSON readable only by its owner; replaced whole, never half-written. */
function writePrivate(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function readJson<T>(file: string, schema: z.ZodType<T>): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function loginFile(configHome: string): string {
  return path.join(configHome, LOGIN_FILE);
}

/** The stored login, or undefined when there is none (or it is unreadable). */
export function readLogin(configHome: string): StoredLogin | undefined {
  return readJson(loginFile(configHome), loginSchema);
}

export function saveLogin(configHome: string, login: StoredLogin): string {
  const file = loginFile(configHome);
  writePrivate(file, login);
  return file;
}

/** Removes the stored login; false when there was none. */
export function removeLogin(configHome: string): boolean {
  const file = loginFile(configHome);
  const existed = existsSync(file);
  rmSync(file, { force: true });
  return existed;
}

export function statusFile(configHome: string): string {
  return path.join(configHome, STATUS_FILE);
}

export function readStatus(configHome: string): StatusRecord | undefined {
  return readJson(statusFile(configHome), statusSchema);
}

export function writeStatus(configHome: string, status: StatusRecord): void {
  writePrivate(statusFile(configHome), status);
}
