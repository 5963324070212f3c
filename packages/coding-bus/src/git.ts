// Git in a workspace Junction holds itself (direct HTTP mode): commands run with execFile (no
// shell), the token given to https remotes through git's own environment configuration (an
// Authorization header), so it is never in an argument list, a remote URL or an error text.
import { execFile } from 'node:child_process';

export interface GitOutcome {
  ok: boolean;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Sent to https remotes as basic auth (x-access-token), never written to disk. */
  token?: string;
  signal?: AbortSignal;
  /** Default 120 s. */
  timeoutMs?: number;
}

/** Runs `git <args>` in `cwd`. Never throws for git's own failure: `ok` is false, stderr says why. */
export function git(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<GitOutcome> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    // A commit needs a name; the workspace's or the user's own wins when set.
    GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? 'Junction coding agent',
    GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? 'junction@localhost',
    GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? 'Junction coding agent',
    GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? 'junction@localhost',
  };
  if (options.token) {
    const basic = Buffer.from(`x-access-token:${options.token}`).toString('base64');
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basic}`;
  }
  return new Promise((resolve) => {
    execFile(
      'git',
      args as string[],
      {
        cwd,
        env,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 8 * 1024 * 1024,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (err, stdout, stderr) => {
        const text = (s: string | Buffer): string => String(s ?? '').trim();
        if (err && typeof (err as { code?: unknown }).code !== 'number') {
          // Not git's own exit status: git is missing, aborted or timed out.
          resolve({ ok: false, stdout: text(stdout), stderr: text(stderr) || err.message });
          return;
        }
        resolve({ ok: !err, stdout: text(stdout), stderr: text(stderr) });
      },
    );
  });
}

/** Branch, commit and whether the tree has changes; undefined outside a git repository. */
export async function gitState(
  cwd: string,
): Promise<{ branch: string; commit: string; dirty: boolean } | undefined> {
  const inside = await git(cwd, ['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.stdout !== 'true') return undefined;
  const [branch, commit, status] = await Promise.all([
    git(cwd, ['rev-parse', '--abbrev-ref', 'HEAD']),
    git(cwd, ['rev-parse', 'HEAD']),
    git(cwd, ['status', '--porcelain']),
  ]);
  return {
    branch: branch.ok ? branch.stdout : '',
    commit: commit.ok ? commit.stdout : '',
    dirty: status.stdout.length > 0,
  };
}

/** Paths `git status --porcelain` lists (changed, added, deleted, untracked). */
export async function changedFiles(cwd: string): Promise<string[]> {
  const status = await git(cwd, ['status', '--porcelain', '--untracked-files=all']);
  if (!status.ok) return [];
  return status.stdout
    .split('\n')
    .filter((line) => line.length > 3)
    .map((line) => line.slice(3).replace(/^.* -> /, ''));
}
