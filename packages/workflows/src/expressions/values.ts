// Runtime values and the operations on them. Inside the interpreter a dict is a Map, so keys
// like "__proto__" or "constructor" are ordinary data and never reach Object.prototype, and
// insertion order is kept. Values cross the boundary through fromHost/toHost, which also copy,
// so a program can never change the caller's objects.
import { fail } from './errors.js';
import type { BinOp, CmpOp } from './parser.js';

export type Val = null | boolean | number | string | Val[] | Dict;
export type Dict = Map<string, Val>;

/** A JSON-like value as the caller sees it. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** Deepest value (lists in lists…) we recurse into; keeps printing and comparing off the JS stack limit. */
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
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  return v.size > 0;
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

function tooDeep(depth: number, doing: string): void {
  if (depth > MAX_VALUE_DEPTH) fail(`value is nested too deeply to ${doing}`);
}

export function equals(h: Host, a: Val, b: Val, depth = 0): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    tooDeep(depth, 'compare');
    h.charge(a.length);
    return a.every((x, i) => equals(h, x, b[i]!, depth + 1));
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    tooDeep(depth, 'compare');
    h.charge(a.size);
    for (const [k, x] of a) {
      const y = b.get(k);
      if (y === undefined || !equals(h, x, y, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

/** Ordering for <, sorted, min and max: numbers, strings, bools, and lists element by element. */
export function compare(h: Host, a: Val, b: Val, op: string, depth = 0): number {
  const both = (t: string): boolean => typeof a === t && typeof b === t;
  if (both('number') || both('string') || both('boolean')) {
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    tooDeep(depth, 'compare');
    const n = Math.min(a.length, b.length);
    h.charge(n);
    for (let i = 0; i < n; i++) {
      const c = compare(h, a[i]!, b[i]!, op, depth + 1);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  return fail(`cannot compare ${typeName(a)} and ${typeName(b)} with ${op}`);
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
    if (x === null) add('None');
    else if (typeof x === 'boolean') add(x ? 'True' : 'False');
    else if (typeof x === 'number') add(String(x));
    else if (typeof x === 'string') add(JSON.stringify(x));
    else {
      tooDeep(depth, 'print');
      const isList = Array.isArray(x);
      add(isList ? '[' : '{');
      let first = true;
      for (const item of isList ? x : x.entries()) {
        if (!first) add(', ');
        first = false;
        if (isList) walk(item as Val, depth + 1);
        else {
          const [k, y] = item as [string, Val];
          add(`${JSON.stringify(k)}: `);
          walk(y, depth + 1);
        }
      }
      add(isList ? ']' : '}');
    }
  };
  walk(v, 0);
  h.charge(length);
  return parts.join('');
}

export function toStr(h: Host, v: Val): string {
  return typeof v === 'string' ? v : repr(h, v);
}

/** The elements a `for` loop visits: a snapshot, so changing the container inside the loop is safe. */
export function iterate(h: Host, v: Val): Val[] {
  let items: Val[];
  if (Array.isArray(v)) items = v.slice();
  else if (v instanceof Map) items = [...v.keys()];
  else if (typeof v === 'string') items = v.split('');
  else return fail(`${typeName(v)} is not iterable`);
  h.charge(items.length);
  return items;
}

export function binop(h: Host, op: BinOp, a: Val, b: Val): Val {
  if (typeof a === 'number' && typeof b === 'number') return arithmetic(op, a, b);
  if (op === '+' && typeof a === 'string' && typeof b === 'string') {
    h.grow(a.length + b.length, 'string');
    return a + b;
  }
  if (op === '+' && Array.isArray(a) && Array.isArray(b)) {
    h.grow(a.length + b.length, 'list');
    return a.concat(b);
  }
  if (op === '*' && isInt(b) && (typeof a === 'string' || Array.isArray(a))) return repeat(h, a, b);
  if (op === '*' && isInt(a) && (typeof b === 'string' || Array.isArray(b))) return repeat(h, b, a);
  if (op === '%' && typeof a === 'string')
    fail('"%" formatting is not supported; use "...".format()');
  return fail(`unsupported operand types for ${op}: ${typeName(a)} and ${typeName(b)}`);
}

function arithmetic(op: BinOp, a: number, b: number): number {
  if (b === 0 && (op === '/' || op === '//' || op === '%')) fail(`division by zero (${op})`);
  if (op === '**' && a === 0 && b < 0) fail('division by zero (0 ** negative)');
  let r: number;
  if (op === '+') r = a + b;
  else if (op === '-') r = a - b;
  else if (op === '*') r = a * b;
  else if (op === '/') r = a / b;
  else if (op === '//') r = Math.floor(a / b);
  else if (op === '%')
    r = ((a % b) + b) % b; // the sign follows the divisor, as in Python
  else r = a ** b;
  if (Number.isNaN(r)) fail(`${op} has no real-number result here`);
  if (!Number.isFinite(r)) fail(`number is too large (overflow in ${op})`);
  return r;
}

function repeat(h: Host, seq: string | Val[], times: number): Val {
  const n = Math.max(0, times);
  if (seq.length === 0 || n === 0) return typeof seq === 'string' ? '' : [];
  h.grow(seq.length * n, typeof seq === 'string' ? 'string' : 'list');
  if (typeof seq === 'string') return seq.repeat(n);
  const out: Val[] = [];
  for (let i = 0; i < n; i++) for (const x of seq) out.push(x);
  return out;
}

export function compareOp(h: Host, op: CmpOp, a: Val, b: Val): boolean {
  switch (op) {
    case '==':
      return equals(h, a, b);
    case '!=':
      return !equals(h, a, b);
    case 'in':
      return contains(h, a, b);
    case 'not in':
      return !contains(h, a, b);
    case '<':
      return compare(h, a, b, op) < 0;
    case '<=':
      return compare(h, a, b, op) <= 0;
    case '>':
      return compare(h, a, b, op) > 0;
    case '>=':
      return compare(h, a, b, op) >= 0;
  }
}

function contains(h: Host, needle: Val, hay: Val): boolean {
  if (Array.isArray(hay)) {
    h.charge(hay.length);
    return hay.some((x) => equals(h, x, needle));
  }
  if (hay instanceof Map) return typeof needle === 'string' && hay.has(needle);
  if (typeof hay === 'string') {
    if (typeof needle === 'string') return hay.includes(needle);
    return fail(`"in" on a string needs a string on the left, not ${typeName(needle)}`);
  }
  return fail(`"in" needs a list, dict or string on the right, not ${typeName(hay)}`);
}

/** Normalises a list/string index (negative counts from the end); out of range is an error. */
export function position(key: Val, length: number, what: string): number {
  if (!isInt(key)) return fail(`${what} indices must be ints, not ${typeName(key)}`);
  const i = key < 0 ? key + length : key;
  if (i < 0 || i >= length) fail(`index ${key} is out of range for a ${what} of length ${length}`);
  return i;
}

export function getItem(v: Val, key: Val, label: string): Val {
  if (typeof v === 'string') return v[position(key, v.length, 'string')]!;
  if (Array.isArray(v)) return v[position(key, v.length, 'list')]!;
  if (v instanceof Map) {
    const found = typeof key === 'string' ? v.get(key) : undefined;
    if (found !== undefined) return found;
    const shown = typeof key === 'string' ? quote(key) : typeName(key);
    return fail(`${label} has no key ${shown} (use ${label}.get(key, default) for optional keys)`);
  }
  return fail(`${typeName(v)} cannot be indexed`);
}

export function setItem(h: Host, v: Val, key: Val, value: Val): void {
  if (Array.isArray(v)) v[position(key, v.length, 'list')] = value;
  else if (v instanceof Map) {
    if (!v.has(dictKey(key))) h.grow(v.size + 1, 'dict');
    v.set(dictKey(key), value);
  } else fail(`${typeName(v)} does not support item assignment`);
}

/** Python slicing: bounds are clamped, negative ones count from the end, the step may be negative. */
export function slice(h: Host, v: Val, lo: Val, hi: Val, step: Val): Val {
  if (typeof v !== 'string' && !Array.isArray(v)) return fail(`${typeName(v)} cannot be sliced`);
  const bound = (x: Val, name: string): number | null =>
    x === null
      ? null
      : isInt(x)
        ? x
        : fail(`slice ${name} must be an int or None, not ${typeName(x)}`);
  const by = bound(step, 'step') ?? 1;
  if (by === 0) fail('slice step cannot be zero');
  const n = v.length;
  const clamp = (x: number | null, fallback: number): number => {
    if (x === null) return fallback;
    const i = x < 0 ? x + n : x;
    return by > 0 ? Math.min(Math.max(i, 0), n) : Math.min(Math.max(i, -1), n - 1);
  };
  const start = clamp(bound(lo, 'start'), by > 0 ? 0 : n - 1);
  const stop = clamp(bound(hi, 'end'), by > 0 ? n : -1);
  if (by === 1) {
    h.charge(Math.max(0, stop - start));
    return v.slice(start, stop);
  }
  const picked: Val[] = [];
  for (let i = start; by > 0 ? i < stop : i > stop; i += by) picked.push(v[i]!);
  h.charge(picked.length);
  return typeof v === 'string' ? picked.join('') : picked;
}

/**
 * Copies a caller's value into interpreter values, the way JSON.stringify would see it:
 * non-finite numbers become None, functions/undefined/symbols are dropped (None in lists),
 * Dates become ISO strings, and only own enumerable keys of objects are kept.
 */
export function fromHost(x: unknown, name: string, maxLength: number): Val {
  const active = new Set<object>();
  const done = new Map<object, Val>(); // shared sub-objects are copied once
  const convert = (v: unknown, depth: number): Val | undefined => {
    if (typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    if (typeof v === 'bigint') return Number(v);
    if (typeof v !== 'object') return undefined;
    if (v === null) return null;
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
    const copied = done.get(v);
    if (copied !== undefined) return copied;
    if (active.has(v)) fail(`the value of "${name}" contains itself`);
    if (depth > MAX_VALUE_DEPTH) fail(`the value of "${name}" is nested too deeply`);
    active.add(v);
    let out: Val;
    if (Array.isArray(v)) {
      if (v.length > maxLength) fail(`the value of "${name}" has a list longer than ${maxLength}`);
      out = [];
      for (let i = 0; i < v.length; i++) out.push(convert(v[i], depth + 1) ?? null);
    } else {
      out = new Map();
      for (const key of Object.keys(v)) {
        const item = convert((v as Record<string, unknown>)[key], depth + 1);
        if (item !== undefined) out.set(key, item);
      }
    }
    active.delete(v);
    done.set(v, out);
    return out;
  };
  return convert(x, 0) ?? null;
}

/** Copies an interpreter value out as plain JSON-like data. */
export function toHost(h: Host, v: Val, depth = 0): Value {
  if (v === null || typeof v !== 'object') return v;
  if (depth > MAX_VALUE_DEPTH) fail('the result is nested too deeply (or contains itself)');
  if (Array.isArray(v)) {
    h.charge(v.length);
    return v.map((x) => toHost(h, x, depth + 1));
  }
  h.charge(v.size);
  const out: { [key: string]: Value } = {};
  for (const [k, x] of v) {
    // A plain assignment to "__proto__" would set the prototype instead of a key.
    Object.defineProperty(out, k, {
      value: toHost(h, x, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
