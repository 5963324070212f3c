// `junction` under a real pseudo-terminal (util-linux `script`), for the tests of what a person
// at a terminal sees: prompts, spinners, colour, streamed text, tables cut to the width.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './run-cli.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

export interface TerminalRun {
  status: number | null;
  /** Everything the terminal got, escape codes included. */
  output: string;
  /** The output so far, each time more arrived, with when. */
  arrivals: Array<{ at: number; text: string }>;
}

export interface TerminalOptions {
  /** Environment besides PATH and HOME (the workspace's XDG_CONFIG_HOME, keys). */
  env: NodeJS.ProcessEnv;
  /** Typed once `when` shows (a y/N question). */
  answer?: { when: string; send: string };
  /** The terminal's width. */
  columns?: number;
}

/** Runs `junction args` at a terminal and resolves when it exits (killed after 60 s). */
export function runAtTerminal(args: string[], options: TerminalOptions): Promise<TerminalRun> {
  const command = [process.execPath, bin, ...args].map((w) => `'${w}'`).join(' ');
  const line = options.columns !== undefined ? `stty cols ${options.columns}; ${command}` : command;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', line, '/dev/null'], {
      env: { ...baseEnv(), ...options.env },
    });
    let output = '';
    let answered = false;
    const arrivals: TerminalRun['arrivals'] = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      arrivals.push({ at: Date.now(), text: output });
      if (options.answer && !answered && output.includes(options.answer.when)) {
        answered = true;
        child.stdin.write(options.answer.send);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output, arrivals });
    });
  });
}

/** `text` without terminal escape sequences. */
export function withoutEscapes(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
}
