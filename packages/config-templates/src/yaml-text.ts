// The one way Junction reads a YAML text (config.yaml, variables.yml, prompt front matter):
// the first problem as a line, column and one-line reason, never a thrown stack. Hostile
// input is a problem like any other: nesting too deep for the parser (a RangeError) and
// alias bombs (the yaml library's resource-exhaustion guard) are reported, not thrown.
import { parseDocument, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

/** Where and why a YAML text could not be read. */
export interface YamlProblem {
  reason: string;
  line: number | undefined;
  column: number | undefined;
  cause: unknown;
}

/** The value of a YAML text, or its first problem. */
export type YamlResult = { ok: true; value: unknown } | { ok: false; problem: YamlProblem };

function thrown(error: unknown): YamlProblem {
  const reason =
    error instanceof RangeError
      ? 'it is nested too deeply to read (thousands of levels of [ or {)'
      : error instanceof ReferenceError && /alias/i.test(error.message)
        ? 'it expands its aliases (*name) too many times, as an alias bomb does'
        : `it cannot be read (${error instanceof Error ? error.message : String(error)})`;
  return { reason, line: undefined, column: undefined, cause: error };
}

/** Parses `text`; never throws for anything the text holds. */
export function readYaml(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions = {},
): YamlResult {
  try {
    const document = parseDocument(text, { prettyErrors: true, ...options });
    const first = document.errors[0];
    if (first !== undefined) {
      const where = first.linePos?.[0];
      const reason =
        first.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? first.message;
      return {
        ok: false,
        problem: { reason, line: where?.line, column: where?.col, cause: first },
      };
    }
    return { ok: true, value: document.toJS() as unknown };
  } catch (error) {
    return { ok: false, problem: thrown(error) };
  }
}
