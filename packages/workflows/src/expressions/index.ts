// Public API of the workflow expression language: a small Starlark subset for `if:` conditions
// and `expression:` transforms. Parse once, evaluate many times against different scopes.
//
// Supported: None/True/False, numbers, strings ('…', "…", triple-quoted), lists, dicts, tuples
// (as lists); arithmetic, comparisons (chained), in/not in, and/or/not, `a if c else b`; field
// access on dicts, indexing, slicing; list and dict comprehensions; a fixed set of builtins
// and methods (builtins.ts). Programs add `=`, `+=`-style and subscript assignment, if/elif/else,
// for, pass and `;`. Refused with a clear error: def, lambda, while, break/continue, import, `is`,
// sets, f-strings, % formatting, and any call that is not a builtin or a method of a value.
import { ExpressionError, ExpressionSyntaxError } from './errors.js';
import { guard, Interpreter, type Limits } from './interpreter.js';
import { parseExpressionSource, parseProgramSource, type Expr, type Stmt } from './parser.js';
import { toHost, type Value } from './values.js';

export { ExpressionError, ExpressionSyntaxError };
export type { Limits, Value };

/** Longest source accepted, in characters. */
export const MAX_SOURCE_LENGTH = 20_000;

export interface Program {
  readonly source: string;
  readonly mode: 'expression' | 'program';
}

/** The parsed statements stay private to this module: callers only see source and mode. */
const parsed = new WeakMap<Program, Stmt[]>();

function parse(source: string, mode: Program['mode']): Program {
  if (source.length > MAX_SOURCE_LENGTH) {
    const what = `source is ${source.length} characters long, more than the limit of ${MAX_SOURCE_LENGTH}`;
    throw new ExpressionSyntaxError(what, 1, 1);
  }
  let body: Stmt[];
  try {
    // An expression is a program of one expression statement, whose value is the result.
    body =
      mode === 'program'
        ? parseProgramSource(source)
        : [{ kind: 'expr', expr: parseExpressionSource(source) }];
  } catch (err) {
    if (err instanceof RangeError)
      throw new ExpressionSyntaxError('expression is too complex', 1, 1);
    throw err;
  }
  const program: Program = Object.freeze({ source, mode });
  parsed.set(program, body);
  return program;
}

/** Parses one expression, such as an `if:` condition. Line breaks inside it are whitespace. */
export function parseExpression(source: string): Program {
  return parse(source, 'expression');
}

/**
 * Parses statements, such as a transform's `expression:`. A common indentation (from a YAML
 * block) is allowed; a single expression is a valid program.
 */
export function parseProgram(source: string): Program {
  return parse(source, 'program');
}

/**
 * Evaluates a parsed program against read-only `scope` data. Returns a fresh JSON-like value;
 * the caller's scope objects are never modified. Throws ExpressionError on runtime errors and
 * when a limit is exceeded.
 */
export function evaluate(program: Program, scope: Record<string, Value>, limits?: Limits): Value {
  // A Program that lost its AST (cloned or deserialised) is parsed again from its source.
  const body = parsed.get(program) ?? parsed.get(parse(program.source, program.mode))!;
  const interpreter = new Interpreter(scope, limits ?? {});
  return guard(() => toHost(interpreter, interpreter.run(body)));
}

/**
 * The names of a program that is only a name and its fields (`n`, `a.b.c`), or undefined for
 * any other program. Such a program reads the value there and nothing else, which a caller may
 * do directly (see renderTemplate).
 */
export function pathOf(program: Program): readonly string[] | undefined {
  const body = parsed.get(program);
  const only = body?.length === 1 ? body[0] : undefined;
  if (only?.kind !== 'expr') return undefined;
  const names: string[] = [];
  let e: Expr = only.expr;
  while (e.kind === 'attr') {
    names.push(e.name);
    e = e.obj;
  }
  if (e.kind !== 'name') return undefined;
  names.push(e.name);
  return names.reverse();
}

/** Starlark truthiness: None, False, 0, "", [] and {} are false; everything else is true. */
export function isTruthy(value: Value): boolean {
  if (value === null || value === undefined || typeof value === 'boolean') return value === true;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string' || Array.isArray(value)) return value.length > 0;
  return typeof value !== 'object' || Object.keys(value).length > 0;
}
