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
import {
  evaluate,
  parseExpression,
  pathOf,
  type Program,
  type Value,
} from './expressions/index.js';

export type Context = Record<string, Value>;

const isObject = (v: unknown): v is Record<string, Value> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A deep copy of a JSON value (contexts of branches and iterations are copies). */
export function copyValue<T>(value: T): T {
  // Only objects need copying (a clone of a string or number costs as much as one of a small object).
  return value === null || typeof value !== 'object' ? value : (structuredClone(value) as T);
}

/** Deepest nesting `copyJson` copies itself; deeper values are left to structuredClone. */
const MAX_COPY_DEPTH = 200;

/**
 * A deep copy of a value parsed from JSON (a run's input, a definition's data): plain objects,
 * arrays and scalars, with no value reached twice. Copied directly, which costs a fraction of
 * structuredClone for the small values workflows carry; anything else is structuredClone'd.
 */
export function copyJson<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_COPY_DEPTH) return structuredClone(value);
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i] as unknown, depth + 1);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson((value as Record<string, unknown>)[key], depth + 1);
    if (key === '__proto__') {
      // Assignment would set the copy's prototype instead of a key.
      Object.defineProperty(out, key, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = copied;
  }
  return out as T;
}

/** The context a run starts with: its input under `workflow.input` and, flattened, at the root. */
export function initialContext(input: unknown): Context {
  const ctx: Context = { workflow: { input: copyJson(input ?? {}) as Value }, steps: {} };
  if (isObject(input)) {
    for (const [key, value] of Object.entries(input)) {
      if (key !== 'workflow' && key !== 'steps' && !RESERVED.has(key)) ctx[key] = copyJson(value);
    }
  }
  return ctx;
}

/** Keys JavaScript gives a meaning of their own: never written into a context object. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/** Segments of paths met before: a definition names the same few paths on every run. */
const segmentsOf = new Map<string, readonly string[]>();

/** The segments of `$.a.b` / `a.b` (`$` and `` are the root). */
function segments(path: string): readonly string[] {
  let found = segmentsOf.get(path);
  if (found === undefined) {
    const text = path.trim().replace(/^\$\.?/, '');
    found = Object.freeze(text === '' ? [] : text.split('.'));
    if (segmentsOf.size >= 1000) segmentsOf.clear();
    segmentsOf.set(path, found);
  }
  return found;
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
  for (const key of keys) {
    if (RESERVED.has(key)) throw new Error(`path ${path} may not name "${key}"`);
  }
  if (keys.length === 0) {
    if (isObject(value)) Object.assign(root, value);
    return;
  }
  let at: Record<string, Value> = root;
  const last = keys.length - 1;
  for (let i = 0; i < last; i++) {
    const key = keys[i] as string;
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (!isObject(next)) at[key] = {};
    at = at[key] as Record<string, Value>;
  }
  at[keys[last] as string] = value;
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
  // Expressions never change what they are given (values are copied in as they are read), so
  // the context itself serves as `ctx` unless an injected `ctx` has to be laid over it.
  const view: Record<string, Value> = isObject(ctx.ctx) ? Object.assign({ ...ctx }, ctx.ctx) : ctx;
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
/** A placeholder's program, and its path when it only reads one (`pathOf`). */
const compiled = new Map<string, { program: Program; path: readonly string[] | undefined }>();

/**
 * The scalar at `path` in `scope` exactly as the expression interpreter would answer it (text,
 * a finite number, a boolean or null; a number that is not finite as null), read directly; or
 * undefined when the interpreter must answer (anything else, or nothing there: its error).
 */
function scalarAt(
  scope: Record<string, Value>,
  path: readonly string[],
): { value: Value } | undefined {
  const name = path[0] as string;
  return Object.hasOwn(scope, name) ? scalarUnder(scope[name], path) : undefined;
}

/**
 * `scalarAt` in the scope `scopeOf(ctx, input)` would make, without making it: `input`, then
 * the context's own names, then the aliases. (`ctx`, which may be a blend, is left to the
 * interpreter.)
 */
function scalarInContext(
  ctx: Context,
  input: Value,
  path: readonly string[],
): { value: Value } | undefined {
  const name = path[0] as string;
  if (name === 'input') return scalarUnder(input, path);
  if (name === 'ctx') return undefined;
  if (Object.hasOwn(ctx, name)) return scalarUnder(ctx[name], path);
  if (name === 'true' || name === 'false' || name === 'null') {
    return scalarUnder(name === 'true' ? true : name === 'false' ? false : null, path);
  }
  return undefined;
}

/** The scalar at the fields of `path` (after its name) under `value`; see `scalarAt`. */
function scalarUnder(value: unknown, path: readonly string[]): { value: Value } | undefined {
  let at: unknown = value;
  for (let i = 1; i < path.length; i++) {
    const field = path[i] as string;
    // The interpreter sees an object's own enumerable keys, as JSON.stringify does.
    if (at === null || typeof at !== 'object' || Array.isArray(at) || at instanceof Date) {
      return undefined;
    }
    if (!Object.prototype.propertyIsEnumerable.call(at, field)) return undefined;
    at = (at as Record<string, unknown>)[field];
  }
  if (typeof at === 'string' || typeof at === 'boolean' || at === null) return { value: at };
  if (typeof at === 'number') return { value: Number.isFinite(at) ? at : null };
  return undefined;
}

/** A template split once into its text and placeholders (odd places: their sources). */
const templates = new Map<string, readonly string[]>();

/** The placeholder `source`'s program and path, parsed once. */
function placeholder(source: string): { program: Program; path: readonly string[] | undefined } {
  const expression = source.replace(/^\$\./, '');
  let known = compiled.get(expression);
  if (known === undefined) {
    const program = parseExpression(expression);
    known = { program, path: pathOf(program) };
    if (compiled.size > 1000) compiled.clear();
    compiled.set(expression, known);
  }
  return known;
}

/**
 * `text` with each `{{ expr }}` replaced by the value of `expr` (a path such as `a.b` or
 * `$.a.b`, or any Starlark expression) in `scope`: strings as they are, other values as JSON.
 * Throws (ExpressionError / ExpressionSyntaxError) naming the placeholder when one fails.
 */
export function renderTemplate(text: string, scope: Record<string, Value>): string {
  const parts = templateParts(text);
  let out = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const known = placeholder(parts[i] as string);
    // A placeholder that names a value (the usual `{{ ticket }}`) is read, not interpreted.
    const direct = known.path === undefined ? undefined : scalarAt(scope, known.path);
    const value = direct === undefined ? evaluate(known.program, scope) : direct.value;
    out += (typeof value === 'string' ? value : JSON.stringify(value)) + (parts[i + 1] as string);
  }
  return out;
}

/**
 * `renderTemplate(text, scopeOf(ctx, input))`, making the scope only for a placeholder that
 * must be interpreted.
 */
export function renderInContext(text: string, ctx: Context, input: Value): string {
  const parts = templateParts(text);
  let out = parts[0] as string;
  let scope: Record<string, Value> | undefined;
  for (let i = 1; i < parts.length; i += 2) {
    const known = placeholder(parts[i] as string);
    const direct = known.path === undefined ? undefined : scalarInContext(ctx, input, known.path);
    const value =
      direct === undefined
        ? evaluate(known.program, (scope ??= scopeOf(ctx, input)))
        : direct.value;
    out += (typeof value === 'string' ? value : JSON.stringify(value)) + (parts[i + 1] as string);
  }
  return out;
}

/** `text` split once into its text and placeholders (odd places: their sources). */
function templateParts(text: string): readonly string[] {
  let parts = templates.get(text);
  if (parts === undefined) {
    // split() with the capturing group: text, source, text, source, …, text.
    parts = Object.freeze(text.split(TEMPLATE));
    if (templates.size > 1000) templates.clear();
    templates.set(text, parts);
  }
  return parts;
}

/** True when `text` holds a `{{ … }}` placeholder. */
export function hasTemplate(text: string): boolean {
  TEMPLATE.lastIndex = 0;
  return TEMPLATE.test(text);
}
