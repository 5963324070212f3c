// Public API of the workflow expression language: a small Starlark subset for `if:` conditions
// and `expression:` transforms. Parse once, evaluate many times against different scopes.
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

type Ast = { mode: 'expression'; expr: Expr } | { mode: 'program'; body: Stmt[] };

/** The AST stays private to this module: a Program is just its source and mode to callers. */
const asts = new WeakMap<Program, Ast>();

function parse(source: string, mode: Program['mode']): Program {
  if (source.length > MAX_SOURCE_LENGTH) {
    const what = `source is ${source.length} characters long, more than the limit of ${MAX_SOURCE_LENGTH}`;
    throw new ExpressionSyntaxError(what, 1, 1);
  }
  let ast: Ast;
  try {
    ast =
      mode === 'expression'
        ? { mode, expr: parseExpressionSource(source) }
        : { mode, body: parseProgramSource(source) };
  } catch (err) {
    if (err instanceof RangeError)
      throw new ExpressionSyntaxError('expression is too complex', 1, 1);
    throw err;
  }
  const program: Program = Object.freeze({ source, mode });
  asts.set(program, ast);
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
export function evaluate(
  program: Program,
  scope: Record<string, Value>,
  limits: Limits = {},
): Value {
  // A Program that lost its AST (cloned or deserialised) is parsed again from its source.
  const ast = asts.get(program) ?? asts.get(parse(program.source, program.mode))!;
  const interpreter = new Interpreter(scope, limits);
  return guard(() => {
    const v =
      ast.mode === 'expression'
        ? interpreter.runExpression(ast.expr)
        : interpreter.runProgram(ast.body);
    return toHost(interpreter, v);
  });
}

/** Starlark truthiness: None, False, 0, "", [] and {} are false; everything else is true. */
export function isTruthy(value: Value): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string' || Array.isArray(value)) return value.length > 0;
  return typeof value !== 'object' || Object.keys(value).length > 0;
}
