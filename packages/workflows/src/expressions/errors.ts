// The two errors a workflow author can see from an expression. Syntax errors carry a position
// so the editor and the CLI can point at it; runtime errors are one sentence about what went wrong.

/** The source is not valid: the message says what is wrong and ends with "at line L, column C". */
export class ExpressionSyntaxError extends Error {
  override readonly name = 'ExpressionSyntaxError';
  /** 1-based line of the offending token. */
  readonly line: number;
  /** 1-based column of the offending token (a tab counts as one column). */
  readonly column: number;

  constructor(what: string, line: number, column: number) {
    super(`${what} at line ${line}, column ${column}`);
    this.line = line;
    this.column = column;
  }
}

/** Evaluation failed: unknown name, wrong type, missing field, or a limit was exceeded. */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

/** Throws an ExpressionError; typed `never` so it can end an expression branch. */
export function fail(message: string): never {
  throw new ExpressionError(message);
}
