// Runtime values and the operations on them. Inside the interpreter a dict is a Map, so keys
// like "__proto__" or "constructor" are ordinary data that never reach Object.prototype, and
// insertion order is kept. Values cross the boundary through fromHost/toHost, which copy, so a
// program can never change the caller's objects.
import { fail } from './errors.js';
import type { BinOp, CmpOp } from './parser.js';

export type Val = null | boolean | number | string | Val[] | Dict;
export type Dict = Map<string, Val>;

/** A JSON-like value as the caller sees it. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** Deepest value we recurse into when printing, comparing or copying: stays off the stack limit. */
export const MAX_VALUE_DEPTH = 1000;

/** What value operations need from the running evaluation: limits and a work meter. */
export interface Host {
  readonly maxLength: number;
  /** Counts bulk work (elements visited or built) against the step and time limits. */
  charge(units: number): void;
  /** Refuses a string/list about to exceed maxLength, and charges for building it. */
  grow(length: number, what: string): void;
}

export function typeName(v: Val): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'list' : 'dict';
}

export function truthy(v: Val): boolean {
  if (v === null || typeof v === 'boolean') return v === true;
  if (typeof v === 'number') return v !== 0;
  return (typeof v === 'string' || Array.isArray(v) ? v.length : v.size) > 0;
}

export function isInt(v: Val | undefined): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

export function dictKey(v: Val): string {
  return typeof v === 'string' ? v : fail(`dict keys must be strings, not ${typeName(v)}`);
}

/** Short quoted form of a string for error messages. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}...` : s);
}

function checkDepth(depth: number, doing: string): void {
  if (depth > MAX_VALUE_DEPTH) fail(`value is nested too deeply to ${doing}`);
}

/** Deep equality; 1 == 1.0, but values of different types are never equal (True != 1). */
export function equals(h: Host, a: Val, b: Val, depth = 0): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    checkDepth(depth, 'compare');
    h.charge(a.length);
    return a.every((x, i) => equals(h, x, b[i]!, depth + 1));
  }
  if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
  checkDepth(depth, 'compare');
  h.charge(a.size);
  for (const [k, x] of a) {
    const y = b.get(k);
    if (y === undefined || !equals(h, x, y, depth + 1)) return false;
  }
  return true;
}

/** Ordering for <, sorted, min and max: numbers, strings, bools, and lists element by element. */
export function compare(h: Host, a: Val, b: Val, op: string, depth = 0): number {
  if (typeof a === typeof b && ['number', 'string', 'boolean'].includes(typeof a)) {
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
  if (!Array.isArray(a) || !Array.isArray(b)) {
    return fail(`cannot compare ${typeName(a)} and ${typeName(b)} with ${op}`);
  }
  checkDepth(depth, 'compare');
  h.charge(Math.min(a.length, b.length));
  for (let i = 0; i < a.length && i < b.length; i++) {
    const c = compare(h, a[i]!, b[i]!, op, depth + 1);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Starlark's printed form: strings quoted, None/True/False capitalised. */
export function repr(h: Host, v: Val): string {
  const parts: string[] = [];
  let length = 0;
  const add = (s: string): void => {
    length += s.length;
    if (length > h.maxLength)
      fail(`printed value would be longer than the limit of ${h.maxLength}`);
    parts.push(s);
  };
  const walk = (x: Val, depth: number): void => {
    if (x === null || typeof x === 'boolean') add(x === null ? 'None' : x ? 'True' : 'False');
    else if (typeof x !== 'object') add(typeof x === 'string' ? JSON.stringify(x) : String(x));
    else {
      checkDepth(depth, 'print');
      const list = Array.isArray(x);
      add(list ? '[' : '{');
      [...x.entries()].forEach(([k, y], i) => {
        add(i === 0 ? '' : ', ');
        if (!list) add(`${JSON.stringify(k)}: `);
        walk(y, depth + 1);
      });
      add(list ? ']' : '}');
    }
  };
  walk(v, 0);
  h.charge(length);
  return parts.join('');
}

export function toStr(h: Host, v: Val): string {
  return typeof v === 'string' ? v : repr(h, v);
}

/** The elements a `for` visits: a snapshot, so changing the container inside the loop is safe. */
export function iterate(h: Host, v: Val): Val[] {
  if (typeof v !== 'string' && !Array.isArray(v) && !(v instanceof Map)) {
    return fail(`${typeName(v)} is not iterable`);
  }
  const items = typeof v === 'string' ? v.split('') : Array.isArray(v) ? v.slice() : [...v.keys()];
  h.charge(items.length);
  return items;
}

export function binop(h: Host, op: BinOp, a: Val, b: Val): Val {
  if (typeof a === 'number' && typeof b === 'number') return arithmetic(op, a, b);
  const seq = (x: Val): x is string | Val[] => typeof x === 'string' || Array.isArray(x);
  if (op === '+' && seq(a) && seq(b) && typeof a === typeof b) {
    h.grow(a.length + b.length, typeName(a));
    return typeof a === 'string' ? a + (b as string) : a.concat(b);
  }
  if (op === '*' && seq(a) && isInt(b)) return repeat(h, a, b);
  if (op === '*' && seq(b) && isInt(a)) return repeat(h, b, a);
  if (op === '%' && typeof a === 'string')
    fail('"%" formatting is not supported; build strings with str() and +');
  return fail(`unsupported operand types for ${op}: ${typeName(a)} and ${typeName(b)}`);
}

const ARITHMETIC: Record<BinOp, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '//': (a, b) => Math.floor(a / b),
  '%': (a, b) => ((a % b) + b) % b, // the sign follows the divisor, as in Python
  '**': (a, b) => a ** b,
};

function arithmetic(op: BinOp, a: number, b: number): number {
  if (b === 0 && (op === '/' || op === '//' || op === '%')) fail(`division by zero (${op})`);
  if (op === '**' && a === 0 && b < 0) fail('division by zero (0 ** negative)');
  const r = ARITHMETIC[op](a, b);
  if (Number.isNaN(r)) fail(`${op} has no real-number result here`);
  if (!Number.isFinite(r)) fail(`number is too large (overflow in ${op})`);
  return r;
}

function repeat(h: Host, seq: string | Val[], times: number): Val {
  const n = seq.length === 0 ? 0 : Math.max(0, times);
  h.grow(seq.length * n, typeName(seq));
  if (typeof seq === 'string') return seq.repeat(n);
  const out: Val[] = [];
  for (let i = 0; i < n; i++) for (const x of seq) out.push(x);
  return out;
}

export function compareOp(h: Host, op: CmpOp, a: Val, b: Val): boolean {
  if (op === '==' || op === '!=') return equals(h, a, b) === (op === '==');
  if (op === 'in' || op === 'not in') return contains(h, a, b) === (op === 'in');
  const c = compare(h, a, b, op);
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

function contains(h: Host, needle: Val, hay: Val): boolean {
  if (Array.isArray(hay)) {
    h.charge(hay.length);
    return hay.some((x) => equals(h, x, needle));
  }
  if (hay instanceof Map) return typeof needle === 'string' && hay.has(needle);
  if (typeof hay !== 'string')
    fail(`"in" needs a list, dict or string on the right, not ${typeName(hay)}`);
  if (typeof needle !== 'string')
    fail(`"in" on a string needs a string on the left, not ${typeName(needle)}`);
  return hay.includes(needle);
}

/** Normalises a list/string index (negative counts from the end); out of range is an error. */
export function position(key: Val, length: number, what: string): number {
  if (!isInt(key)) return fail(`${what} indices must be ints, not ${typeName(key)}`);
  const i = key < 0 ? key + length : key;
  if (i < 0 || i >= length) fail(`index ${key} is out of range for a ${what} of length ${length}`);
  return i;
}

export function getItem(v: Val, key: Val, label: string): Val {
  if (typeof v === 'string' || Array.isArray(v)) return v[position(key, v.length, typeName(v))]!;
  if (!(v instanceof Map)) return fail(`${typeName(v)} cannot be indexed`);
  const found = typeof key === 'string' ? v.get(key) : undefined;
  if (found !== undefined) return found;
  const shown = typeof key === 'string' ? quote(key) : typeName(key);
  return fail(`${label} has no key ${shown} (use ${label}.get(key, default) for optional keys)`);
}

export function setItem(h: Host, v: Val, key: Val, value: Val): void {
  if (Array.isArray(v)) v[position(key, v.length, 'list')] = value;
  else if (!(v instanceof Map)) fail(`${typeName(v)} does not support item assignment`);
  else {
    if (!v.has(dictKey(key))) h.grow(v.size + 1, 'dict');
    v.set(dictKey(key), value);
  }
}

/** Python slicing: bounds are clamped, negative ones count from the end, the step may be negative. */
export function slice(h: Host, v: Val, lo: Val, hi: Val, step: Val): Val {
  if (typeof v !== 'string' && !Array.isArray(v)) return fail(`${typeName(v)} cannot be sliced`);
  const bound = (x: Val): number | null =>
    x === null
      ? null
      : isInt(x)
        ? x
        : fail(`slice indices must be ints or None, not ${typeName(x)}`);
  const by = bound(step) ?? 1;
  if (by === 0) fail('slice step cannot be zero');
  const n = v.length;
  const clamp = (x: number | null, fallback: number): number => {
    if (x === null) return fallback;
    const i = x < 0 ? x + n : x;
    return by > 0 ? Math.min(Math.max(i, 0), n) : Math.min(Math.max(i, -1), n - 1);
  };
  const start = clamp(bound(lo), by > 0 ? 0 : n - 1);
  const stop = clamp(bound(hi), by > 0 ? n : -1);
  if (by === 1) {
    h.charge(Math.max(0, stop - start));
    return v.slice(start, Math.max(start, stop));
  }
  const picked: Val[] = [];
  for (let i = start; by > 0 ? i < stop : i > stop; i += by) picked.push(v[i]!);
  h.charge(picked.length);
  return typeof v === 'string' ? picked.join('') : picked;
}

/**
 * Copies a caller's value in, as JSON.stringify would see it: non-finite numbers become None,
 * functions and undefined are dropped (None in lists), Dates become ISO strings, and only own
 * enumerable keys of objects are kept. Shared sub-objects are copied once.
 */
export function fromHost(x: unknown, name: string, maxLength: number): Val {
  // A scalar needs no copy (nor the bookkeeping below).
  if (typeof x === 'string' || typeof x === 'boolean') return x;
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (x === null || x === undefined) return null;
  if (!Array.isArray(x) && !(x instanceof Date) && typeof x === 'object') {
    const flat = flatDict(x);
    if (flat !== undefined) return flat;
  }
  const done = new Map<object, Val>();
  const convert = (v: unknown, depth: number): Val | undefined => {
    if (typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    if (typeof v !== 'object') return undefined;
    if (v === null || v instanceof Date) return v && v.toJSON();
    if (done.has(v)) return done.get(v);
    if (depth > MAX_VALUE_DEPTH)
      fail(`the value of "${name}" is nested too deeply (or contains itself)`);
    let out: Val;
    if (Array.isArray(v)) {
      if (v.length > maxLength) fail(`the value of "${name}" has a list longer than ${maxLength}`);
      out = Array.from(v, (item: unknown) => convert(item, depth + 1) ?? null);
    } else {
      out = new Map();
      for (const [k, item] of Object.entries(v)) {
        const copy = convert(item, depth + 1);
        if (copy !== undefined) out.set(k, copy);
      }
    }
    done.set(v, out);
    return out;
  };
  return convert(x, 0) ?? null;
}

/**
 * `fromHost` of an object whose values are all scalars (a step's output, usually), without
 * the bookkeeping of nested values; undefined when one is an object (convert it in full).
 */
function flatDict(v: object): Dict | undefined {
  const out: Dict = new Map();
  for (const key of Object.keys(v)) {
    const item = (v as Record<string, unknown>)[key];
    if (typeof item === 'string' || typeof item === 'boolean') out.set(key, item);
    else if (typeof item === 'number') out.set(key, Number.isFinite(item) ? item : null);
    else if (item === null) out.set(key, null);
    else if (typeof item === 'object') return undefined;
    // Functions, undefined, symbols: left out, as JSON.stringify leaves them out.
  }
  return out;
}

const OWN = { enumerable: true, writable: true, configurable: true };

/** Copies an interpreter value out as plain JSON-like data. */
export function toHost(h: Host, v: Val, depth = 0): Value {
  if (v === null || typeof v !== 'object') return v;
  if (depth > MAX_VALUE_DEPTH) fail('the result is nested too deeply (or contains itself)');
  h.charge(Array.isArray(v) ? v.length : v.size);
  if (Array.isArray(v)) return v.map((x) => toHost(h, x, depth + 1));
  const out: { [key: string]: Value } = {};
  // defineProperty, because assigning "__proto__" would set the prototype instead of a key.
  for (const [k, x] of v) Object.defineProperty(out, k, { ...OWN, value: toHost(h, x, depth + 1) });
  return out;
}
