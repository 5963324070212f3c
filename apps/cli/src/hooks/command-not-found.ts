// A mistyped command (`junction agent lst`): named as not a command, with the closest command
// offered — asked at a terminal (yes runs it), said in a pipe — exit 127 otherwise. Also
// `junction help <topic or command>`, which is that topic's or command's --help.
import { createInterface } from 'node:readline/promises';
import { loadHelpClass, toConfiguredId, type Hook } from '@oclif/core';
import { writeError } from '../error-output.js';
import { exitCodeFor } from '../exit-codes.js';

const hook: Hook.CommandNotFound = async function (opts) {
  const config = opts.config;
  const parts = opts.id.split(':');
  if (parts[0] === 'help') {
    const Help = await loadHelpClass(config);
    await new Help(config, config.pjson.oclif.helpOptions).showHelp([
      ...parts.slice(1),
      ...(opts.argv ?? []),
    ]);
    return;
  }
  const hidden = new Set(config.commands.filter((c) => c.hidden).map((c) => c.id));
  const ids = [...config.commandIDs, ...config.commands.flatMap((c) => c.aliases)].filter(
    (id) => !hidden.has(id),
  );
  const suggestion = closest(opts.id, ids);
  const typed = toConfiguredId(opts.id, config);
  const meant = suggestion === undefined ? undefined : toConfiguredId(suggestion, config);
  const json = (opts.argv ?? []).includes('--json');
  if (suggestion !== undefined && meant !== undefined && !json && atTerminal()) {
    process.stderr.write(`${typed} is not a ${config.bin} command.\n`);
    if (await yes(`Did you mean ${meant}?`)) {
      const argv = opts.argv?.length ? opts.argv : parts.slice(suggestion.split(':').length);
      return config.runCommand(suggestion, argv);
    }
  }
  const topic = config.findTopic(parts[0] ?? '') ? ` ${parts[0]}` : '';
  const message = [
    `${typed} is not a ${config.bin} command.`,
    ...(meant !== undefined ? [`Did you mean ${meant}?`] : []),
    `\`${config.bin}${topic} --help\` lists the commands.`,
  ].join(' ');
  writeError({ code: 'COMMAND_NOT_FOUND', message, details: { command: typed } }, json);
  this.exit(exitCodeFor('COMMAND_NOT_FOUND'));
};

export default hook;

/** Both ends are a terminal: someone can answer a question. */
function atTerminal(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

/** Asks `question` (Y/n, yes by default) at the terminal. */
async function yes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} (Y/n) `);
    return !/^n(o)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** The id nearest `typed` by edit distance; undefined when there are none. */
function closest(typed: string, ids: string[]): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const id of ids) {
    const distance = editDistance(typed, id);
    if (!best || distance < best.distance) best = { id, distance };
  }
  return best?.id;
}

/** Levenshtein distance: insertions, deletions and substitutions of one character. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
