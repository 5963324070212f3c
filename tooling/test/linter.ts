// Lints source text with the real shared config in one child process per test file
// (eslint-process.mjs): what `pnpm lint` would report for `code` written in `file`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'eslint-process.mjs');

export interface LintMessage {
  ruleId: string | null;
  message: string;
  /** 1 a warning, 2 an error. */
  severity: 1 | 2;
}

type Answer = { id: number; messages: LintMessage[] } | { id: number; error: string };

/** A linter in a child process; `close()` it after the file's tests. */
export function startLinter(): {
  lint(file: string, code: string, cwd?: string): Promise<LintMessage[]>;
  close(): Promise<void>;
} {
  let child: ChildProcessWithoutNullStreams | undefined;
  let next = 0;
  let stderr = '';
  const waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  const start = (): ChildProcessWithoutNullStreams => {
    const c = spawn(process.execPath, [script], { cwd: root });
    c.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    createInterface({ input: c.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as Answer;
      waiting.get(answer.id)?.resolve(answer);
      waiting.delete(answer.id);
    });
    c.on('exit', (code, signal) => {
      for (const w of waiting.values()) {
        w.reject(
          new Error(`eslint-process.mjs exited (${code ?? signal}) before answering: ${stderr}`),
        );
      }
      waiting.clear();
    });
    return c;
  };
  return {
    async lint(file, code, cwd = root) {
      child ??= start();
      const id = next++;
      const answered = new Promise<Answer>((resolve, reject) =>
        waiting.set(id, { resolve, reject }),
      );
      child.stdin.write(`${JSON.stringify({ id, cwd, file, code })}\n`);
      const answer = await answered;
      if ('error' in answer) throw new Error(`ESLint failed on ${file}: ${answer.error}`);
      return answer.messages;
    },
    async close() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.stdin.end();
      await exited;
    },
  };
}
