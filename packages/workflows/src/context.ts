// The run context a workflow's steps read and write, and the names its expressions and
// `{{ … }}` templates see. The layout follows the reference implementation's, so its files
// read the values they expect (see docs/workflows.md, "Data"):
//
//   { workflow: {input}, steps: {<id>: {output}}, <input keys…>, <id>: <output>, <resultPath…> }
//
// Expressions see every key of the context as a name, plus `ctx` (the context, with the keys
// of an injected `ctx` object on top, so `ctx.steps.x.output` and `ctx.namespace` both read),
// `input` (what the state works on: the previous state's output unless it says otherwise),
// and `true`/`false`/`null` as aliases of Starlark's `True`/`False`/`None`.
import { evaluate, parseExpression, type Program, type Value } from './expressions/index.js';

export type Context = Record<string, Value>;

const isObject = (v: unknown): v is Record<string, Value> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A deep copy of a JSON value (contexts of branches and iterations are copies). */
export function copyValue<T>(value: T): T {
  return value === undefined ? value : (structuredClone(value) as T);
}

/** The context a run starts with: its input under `workflow.input` and, flattened, at the root. */
export function initialContext(input: unknown): Context {
  const ctx: Context = { workflow: { input: copyValue(input ?? {}) as Value }, steps: {} };
  if (isObject(input)) {
    for (const [key, value] of Object.entries(input)) {
      if (key !== 'workflow' && key !== 'steps' && !RESERVED.has(key)) ctx[key] = copyValue(value);
    }
  }
  return ctx;
}

/** Keys JavaScript gives a meaning of their own: never written into a context object. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/** The segments of `$.a.b` / `a.b` (`$` and `` are the root). */
function segments(path: string): string[] {
  const text = path.trim().replace(/^\$\.?/, '');
  return text === '' ? [] : text.split('.');
}

/** The value at `path` in `root`, or undefined when any segment is missing. */
export function getPath(root: unknown, path: string): Value | undefined {
  let at: unknown = root;
  for (const key of segments(path)) {
    if (Array.isArray(at) && /^\d+$/.test(key)) at = at[Number(key)];
    else if (isObject(at) && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at as Value;
}

/** Sets `value` at `path` in `root`, making the objects on the way. */
export function setPath(root: Context, path: string, value: Value): void {
  const keys = segments(path);
  const reserved = keys.find((k) => RESERVED.has(k));
  if (reserved !== undefined) throw new Error(`path ${path} may not name "${reserved}"`);
  if (keys.length === 0) {
    if (isObject(value)) Object.assign(root, value);
    return;
  }
  let at: Record<string, Value> = root;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (!isObject(next)) at[key] = {};
    at = at[key] as Record<string, Value>;
  }
  at[keys[keys.length - 1] as string] = value;
}

/**
 * Records a state's output in the context: under `steps.<id>.output`, at `<id>`, and at its
 * `resultPath`. A resultPath of `steps.<name>` stores `{output}` there, as the dataflow
 * examples read it (`ctx.steps.triage.output.incident`).
 */
export function recordOutput(ctx: Context, id: string, output: Value, resultPath?: string): void {
  if (!isObject(ctx.steps)) ctx.steps = {};
  (ctx.steps as Record<string, Value>)[id] = { output };
  if (id !== 'steps' && id !== 'workflow' && id !== 'ctx') ctx[id] = output;
  if (resultPath !== undefined) {
    const keys = segments(resultPath);
    if (keys.length === 2 && keys[0] === 'steps') setPath(ctx, resultPath, { output });
    else setPath(ctx, resultPath, output);
  }
}

/** The names an expression sees in `ctx`, with `input` and any extra names on top. */
export function scopeOf(
  ctx: Context,
  input: Value,
  extra: Record<string, Value> = {},
): Record<string, Value> {
  const view: Record<string, Value> = { ...ctx };
  if (isObject(ctx.ctx)) Object.assign(view, ctx.ctx);
  return {
    true: true,
    false: false,
    null: null,
    ...ctx,
    ctx: view,
    input,
    ...extra,
  };
}

const TEMPLATE = /\{\{\s*([\s\S]*?)\s*\}\}/g;
const compiled = new Map<string, Program>();

/**
 * `text` with each `{{ expr }}` replaced by the value of `expr` (a path such as `a.b` or
 * `$.a.b`, or any Starlark expression) in `scope`: strings as they are, other values as JSON.
 * Throws (ExpressionError / ExpressionSyntaxError) naming the placeholder when one fails.
 */
export function renderTemplate(text: string, scope: Record<string, Value>): string {
  return text.replace(TEMPLATE, (_, source: string) => {
    const expression = source.replace(/^\$\./, '');
    let program = compiled.get(expression);
    if (program === undefined) {
      program = parseExpression(expression);
      if (compiled.size > 1000) compiled.clear();
      compiled.set(expression, program);
    }
    const value = evaluate(program, scope);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** True when `text` holds a `{{ … }}` placeholder. */
export function hasTemplate(text: string): boolean {
  TEMPLATE.lastIndex = 0;
  return TEMPLATE.test(text);
}
