// The one way an error leaves the CLI (docs/cli.md): `Error [CODE]: message` on stderr, or
// under --json `{"error": {code, message, details}}` on stdout. Commands (base-command.ts) and
// the not-found hook both print through here, so the form cannot drift between them.

/** What an error says: a stable code, a message that says what to do, JSON-safe details. */
export interface ErrorAnswer {
  code: string;
  message: string;
  details?: unknown;
}

/** Prints `answer` in the documented form; `json` picks the JSON object on stdout. */
export function writeError(answer: ErrorAnswer, json: boolean): void {
  const message = stripAnsi(answer.message).trim();
  if (json) {
    const error = { code: answer.code, message, details: answer.details ?? null };
    process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  } else {
    process.stderr.write(`Error [${answer.code}]: ${message}\n`);
  }
}

/** An argument a command declares, as oclif's RequiredArgsError carries it. */
interface DeclaredArg {
  name?: string;
  description?: string;
}

/**
 * The message of one of oclif's parse refusals (unknown flag, missing argument, bad value)
 * in our words: oclif's first lines, without its "See more help" tail or its note about
 * multiple-value flags unless the user gave one of them, then where the usage is.
 */
export function usageMessage(
  err: Error & { args?: DeclaredArg[] },
  commandLine: string,
  multipleFlagsGiven: string[],
): string {
  const missing = (err.args ?? []).filter((a) => a.name !== undefined);
  let text = stripAnsi(err.message)
    .replace(/\n?See more help with --help\s*$/, '')
    .replace(/\n\nNote: [\s\S]*$/, '');
  if (missing.length > 0) {
    const list = missing
      .map((a) => `${(a.name ?? '').toUpperCase()}${a.description ? ` (${a.description})` : ''}`)
      .join(', ');
    text = `Missing ${missing.length} required arg${missing.length === 1 ? '' : 's'}: ${list}.`;
    if (multipleFlagsGiven.length > 0) {
      const flags = multipleFlagsGiven.map((f) => `--${f}`).join(', ');
      text += ` ${flags} takes several values: put the arguments before it, or end the flags with --.`;
    }
  }
  text = text.replace(/\s*\n\s*/g, ' ').trim();
  return `${text}${/[.!?]$/.test(text) ? '' : '.'} \`${commandLine} --help\` shows the usage.`;
}

/** `text` without terminal colour codes (oclif colours parts of its messages). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
