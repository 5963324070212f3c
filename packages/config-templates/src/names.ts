import { WorkspaceError } from './errors.js';

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** True for names that are safe as one folder or file name: letters, digits, `-`, `_`, at most 64. */
export function isValidName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** Throws INVALID_NAME unless `name` is a valid environment or agent name. */
export function assertValidName(kind: 'environment' | 'agent', name: string): void {
  if (isValidName(name)) return;
  throw new WorkspaceError(
    'INVALID_NAME',
    `Invalid ${kind} name ${JSON.stringify(name)}: use 1 to 64 letters, digits, "-" or "_" (no spaces, path separators or dots).`,
    { kind, name },
  );
}

/** The longest agent name a prompt file may give. */
export const MAX_AGENT_NAME_LENGTH = 128;

/**
 * What is wrong with an agent name a prompt file gives (`metadata.name`, `name`, or the file's
 * stem), or undefined when it is fine. Prompt files made for the reference implementation use
 * display names such as "AWS Cost Analyst", so spaces and punctuation are kept; what could
 * escape a folder, break a line or hide in a table is refused: path separators, a name of only
 * dots, control characters, space at either end, more than 128 characters.
 */
export function agentNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  if (hasControlCharacter(name)) {
    return 'contains a control character (a line break, tab, escape…)';
  }
  if (/[/\\]/.test(name)) return 'contains a path separator ("/" or "\\")';
  if (/^\.+$/.test(name)) return 'is only dots';
  if (name.trim() !== name) return 'has a space at either end';
  if (name.length > MAX_AGENT_NAME_LENGTH) {
    return `is ${name.length} characters long; the most is ${MAX_AGENT_NAME_LENGTH}`;
  }
  return undefined;
}

// C0 and C1 control characters and DEL: never part of a name, a model or an id.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/** True when `text` holds a control character (NUL, a line break, a tab, an escape, DEL…). */
export function hasControlCharacter(text: string): boolean {
  CONTROL_CHARACTERS.lastIndex = 0;
  return CONTROL_CHARACTERS.test(text);
}

/** `text` on one visible line: control characters written as `\n`, `\t`, `\r` or `\u001b`. */
export function visibleText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (c) =>
    c === '\n'
      ? '\\n'
      : c === '\t'
        ? '\\t'
        : c === '\r'
          ? '\\r'
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
