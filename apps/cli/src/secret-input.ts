// Reading a secret: at a terminal, a prompt whose answer is never echoed; from a pipe, the whole
// of stdin (for scripts: `printf %s "$KEY" | junction auth login`). Surrounding white space
// (a pasted newline) is dropped.
import { CliError } from './cli-error.js';

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

async function readAll(input: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Prompts on stderr and reads a line from the terminal without echoing it. */
function readHidden(prompt: string, input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = '';
    const wasRaw = input.isRaw;
    process.stderr.write(prompt);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const done = (error?: Error): void => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (text: string): void => {
      for (const ch of text) {
        if (ENTER.has(ch) || ch === CTRL_D) return done();
        if (ch === CTRL_C) {
          return done(new CliError('INVALID_ARGUMENT', 'Cancelled: no key was entered.'));
        }
        if (BACKSPACE.has(ch)) value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}

/** The secret from the terminal (hidden) or from stdin; INVALID_ARGUMENT when it is empty. */
export async function readSecret(prompt: string, what: string, flag: string): Promise<string> {
  const input = process.stdin;
  const text = input.isTTY ? await readHidden(prompt, input) : await readAll(input);
  const value = text.trim();
  if (value === '') {
    throw new CliError(
      'INVALID_ARGUMENT',
      `No ${what} was given: type it at the prompt, pipe it on stdin, or pass ${flag}.`,
      { argument: flag.replace(/^--/, '') },
    );
  }
  return value;
}
