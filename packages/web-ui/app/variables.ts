// The start-a-run form's variables box: `KEY=value` lines into the request's `variables`.

export type VariablesResult =
  | { ok: true; variables: Record<string, string> }
  | { ok: false; message: string };

/**
 * Reads `KEY=value` lines: blank lines and lines starting with `#` are skipped, the value is
 * everything after the first `=` (kept as typed), a key may be given once.
 */
export function parseVariables(text: string): VariablesResult {
  const variables: Record<string, string> = {};
  const seenOn = new Map<string, number>();
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, raw] of lines.entries()) {
    const lineNo = index + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const eq = raw.indexOf('=');
    if (eq === -1) {
      return { ok: false, message: `Variables line ${lineNo} has no "=": write KEY=value.` };
    }
    const key = raw.slice(0, eq).trim();
    if (key === '' || /\s/.test(key)) {
      return {
        ok: false,
        message: `Variables line ${lineNo} needs a name without spaces before "=".`,
      };
    }
    const first = seenOn.get(key);
    if (first !== undefined) {
      return {
        ok: false,
        message: `Variable ${key} is given twice (lines ${first} and ${lineNo}); keep one.`,
      };
    }
    seenOn.set(key, lineNo);
    variables[key] = raw.slice(eq + 1);
  }
  return { ok: true, variables };
}
