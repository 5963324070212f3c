// `junction --version` and the top-level help, answered without loading oclif: @oclif/core
// alone takes twice as long to import as Node takes to start. Everything here comes from
// package.json and the oclif manifests the build writes, so it imports nothing but Node.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** A command as oclif's manifest describes it (the fields the top-level help shows). */
interface ManifestCommand {
  hidden?: boolean;
  summary?: string;
  description?: string;
}

interface PackageJson {
  version: string;
  description?: string;
  oclif: { plugins?: string[]; topics?: Record<string, { description?: string }> };
}

/** What `junction --version` prints: the tool's name as users type it, then where it runs. */
export function versionLine(version: string): string {
  return `junction/${version} ${process.platform}-${process.arch} node-${process.version}`;
}

/** True for the argument lists that ask for the top-level help: none, --help, -h, help. */
export function asksTopLevelHelp(argv: readonly string[]): boolean {
  return (
    argv.length === 0 || (argv.length === 1 && ['--help', '-h', 'help'].includes(argv[0] ?? ''))
  );
}

/**
 * The text to print for `argv` when it needs no command (the version, the top-level help);
 * undefined when oclif must handle it. `root` is the CLI's package folder.
 */
export function quickAnswer(argv: readonly string[], root: string): string | undefined {
  if (argv[0] !== '--version' && !asksTopLevelHelp(argv)) return undefined;
  const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageJson;
  if (argv[0] === '--version') return `${versionLine(pjson.version)}\n`;
  const commands = readCommands(root, pjson);
  if (commands === undefined) return undefined;
  return topLevelHelp(pjson, commands, helpWidth());
}

/** Root commands (no topic) of the CLI and its plugins; undefined without a manifest. */
function readCommands(root: string, pjson: PackageJson): Map<string, ManifestCommand> | undefined {
  const own = readManifest(root);
  if (!own) return undefined;
  const require = createRequire(path.join(root, 'package.json'));
  const all = new Map(Object.entries(own));
  for (const plugin of pjson.oclif.plugins ?? []) {
    // A plugin's package root: its entry point resolved, then up to its package.json.
    let dir = path.dirname(require.resolve(plugin));
    while (!existsSync(path.join(dir, 'package.json')) && dir !== path.dirname(dir)) {
      dir = path.dirname(dir);
    }
    const theirs = readManifest(dir);
    if (!theirs) return undefined;
    for (const [id, c] of Object.entries(theirs)) all.set(id, c);
  }
  return all;
}

function readManifest(dir: string): Record<string, ManifestCommand> | undefined {
  try {
    const text = readFileSync(path.join(dir, 'oclif.manifest.json'), 'utf8');
    return (JSON.parse(text) as { commands: Record<string, ManifestCommand> }).commands;
  } catch {
    return undefined;
  }
}

/** oclif's help width: the terminal's, else 80. */
function helpWidth(): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return columns !== undefined && columns >= 40 ? columns : 80;
}

/** The top-level help in oclif's layout: description, VERSION, USAGE, TOPICS, COMMANDS. */
export function topLevelHelp(
  pjson: PackageJson,
  commands: Map<string, ManifestCommand>,
  width: number,
): string {
  const visible = [...commands.entries()].filter(([, c]) => c.hidden !== true);
  const topics = new Map<string, string>();
  for (const [id] of visible) {
    const [topic] = id.split(':');
    if (id.includes(':') && topic !== undefined && !commands.has(topic)) {
      topics.set(topic, firstLine(pjson.oclif.topics?.[topic]?.description ?? ''));
    }
  }
  const roots = visible
    .filter(([id]) => !id.includes(':'))
    .map(([id, c]): [string, string] => [id, c.summary ?? firstLine(c.description ?? '')]);
  const sections = [
    pjson.description ?? '',
    `VERSION\n  ${versionLine(pjson.version)}`,
    'USAGE\n  $ junction [COMMAND]',
    `TOPICS\n${twoColumns([...topics.entries()], width)}`,
    `COMMANDS\n${twoColumns(roots, width)}`,
  ];
  return `${sections.join('\n\n')}\n\n`;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/** Names and texts side by side, sorted by name, each text wrapped within `width`. */
function twoColumns(rows: Array<[string, string]>, width: number): string {
  // By code point: names are lower-case ASCII, and localeCompare's first call starts ICU's
  // collator (~35 ms, about as long as Node's own start).
  rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const left = Math.max(...rows.map(([name]) => name.length)) + 2;
  const room = Math.max(20, width - 2 - left);
  return rows
    .map(([name, text]) =>
      wrap(text, room)
        .map((line, i) => `  ${(i === 0 ? name : '').padEnd(left)}${line}`.trimEnd())
        .join('\n'),
    )
    .join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}
