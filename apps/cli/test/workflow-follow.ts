// A `junction workflow run --wait` in a child process, for tests that act while it waits:
// its output as it comes, and a wait for a line of it (an event, not a time).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './run-cli.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

export interface Waiting {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the stdout so far once it matches `pattern`; rejects if the process ends first. */
  printed(pattern: RegExp): Promise<string>;
  exit: Promise<number | null>;
}

/** Starts `junction <args>` and follows its output. */
export function follow(args: string[], env: NodeJS.ProcessEnv): Waiting {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...baseEnv(), ...env } });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const printed = (pattern: RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const look = (): boolean => {
        if (!pattern.test(out)) return false;
        child.stdout!.off('data', look);
        resolve(out);
        return true;
      };
      if (look()) return;
      child.stdout!.on('data', look);
      void exit.then(() => {
        if (!look())
          reject(
            new Error(
              `junction ${args.join(' ')} ended without printing ${pattern}: ${out} ${err}`,
            ),
          );
      });
    });
  return { child, stdout: () => out, stderr: () => err, printed, exit };
}
