// The only callables: a fixed table of builtin functions and of methods per value type. Tables
// are Maps, so a name like "constructor" or "__proto__" is simply not found.
import { fail } from './errors.js';
import {
  compare,
  dictKey,
  equals,
  isInt,
  iterate,
  position,
  quote,
  repr,
  toStr,
  truthy,
  typeName,
  type Dict,
  type Host,
  type Val,
} from './values.js';

export type Callable = (h: Host, self: Val, args: Val[], kwargs: [string, Val][]) => Val;
type Args = (Val | undefined)[];

export const BUILTINS = new Map<string, Callable>();
const STRING = new Map<string, Callable>();
const LIST = new Map<string, Callable>();
const DICT = new Map<string, Callable>();

/** The method table for a value's type, if it has methods. */
export function methodsOf(v: Val): Map<string, Callable> | undefined {
  if (typeof v === 'string') return STRING;
  return Array.isArray(v) ? LIST : v instanceof Map ? DICT : undefined;
}

/**
 * Matches arguments to a parameter list like "x sep? *args default?" (`?` optional, `*` collects
 * the remaining positionals; names after it are keyword-only). Missing optionals are undefined.
 */
function bind(name: string, spec: string[], args: Val[], kwargs: [string, Val][]): Args {
  const rest = spec.findIndex((p) => p.startsWith('*'));
  const positional = rest < 0 ? spec.length : rest;
  if (rest < 0 && args.length > positional) {
    fail(`${name}() takes at most ${positional} arguments (${args.length} given)`);
  }
  const out: Args = spec.map((_, i) => (i === rest ? args.slice(positional) : args[i]));
  for (const [k, v] of kwargs) {
    const i = spec.findIndex((p) => p.replace('?', '') === k);
    if (i < 0) fail(`${name}() got an unexpected keyword argument "${k}"`);
    if (out[i] !== undefined) fail(`${name}() got multiple values for "${k}"`);
    out[i] = v;
  }
  const missing = spec.findIndex((p, i) => out[i] === undefined && !/[?*]/.test(p));
  if (missing >= 0) fail(`${name}() is missing the argument "${spec[missing]}"`);
  return out;
}

/** Registers a callable whose arguments are bound by `params` (see bind). */
function define<T extends Val>(
  table: Map<string, Callable>,
  name: string,
  params: string,
  impl: (h: Host, a: Args, self: T) => Val,
): void {
  const spec = params ? params.split(' ') : [];
  table.set(name, (h, self, args, kw) => impl(h, bind(name, spec, args, kw), self as T));
}

const fn = (name: string, params: string, impl: (h: Host, a: Args) => Val): void =>
  define(BUILTINS, name, params, impl);

function num(v: Val | undefined, what: string): number {
  return typeof v === 'number' ? v : fail(`${what} must be a number, not ${typeName(v ?? null)}`);
}

function int(v: Val | undefined, what: string): number {
  return isInt(v) ? v : fail(`${what} must be an int, not ${typeName(v ?? null)}`);
}

function str(v: Val | undefined, what: string): string {
  return typeof v === 'string' ? v : fail(`${what} must be a string, not ${typeName(v ?? null)}`);
}

/** A non-string argument of int()/float(): nothing is 0, a bool is 0 or 1, else a number. */
function number(x: Val | undefined, what: string): number {
  return x === undefined ? 0 : typeof x === 'boolean' ? Number(x) : num(x, `${what} argument`);
}

function charged(h: Host, list: Val[]): Val[] {
  h.charge(list.length);
  return list;
}

// ---- builtin functions ----

fn('len', 'x', (_h, [x]) => {
  if (typeof x === 'string' || Array.isArray(x)) return x.length;
  return x instanceof Map
    ? x.size
    : fail(`len() needs a string, list or dict, not ${typeName(x!)}`);
});
fn('str', 'x?', (h, [x]) => (x === undefined ? '' : toStr(h, x)));
fn('repr', 'x', (h, [x]) => repr(h, x!));
fn('bool', 'x?', (_h, [x]) => x !== undefined && truthy(x));
fn('type', 'x', (_h, [x]) => typeName(x!));
fn('abs', 'x', (_h, [x]) => Math.abs(num(x, 'abs() argument')));
fn('list', 'x?', (h, [x]) => (x === undefined ? [] : iterate(h, x)));
fn('any', 'x', (h, [x]) => iterate(h, x!).some(truthy));
fn('all', 'x', (h, [x]) => iterate(h, x!).every(truthy));
fn('enumerate', 'x', (h, [x]) => iterate(h, x!).map((item, i) => [i, item]));

/** int() and float() follow Python: int("3.5") is an error, int(3.9) is 3. */
fn('int', 'x?', (_h, [x]) => {
  if (typeof x !== 'string') return Math.trunc(number(x, 'int()')) || 0;
  if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(x)) fail(`int() cannot convert ${quote(x)} to an integer`);
  const n = Number(x.replace(/_/g, ''));
  return Number.isSafeInteger(n) ? n : fail(`int() value ${quote(x)} is too large`);
});
fn('float', 'x?', (_h, [x]) => {
  if (typeof x !== 'string') return number(x, 'float()');
  const n = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(x) ? Number(x) : NaN;
  return Number.isFinite(n) ? n : fail(`float() cannot convert ${quote(x)} to a number`);
});

fn('sum', 'x', (h, [x]) => {
  const total = iterate(h, x!).reduce((n: number, v) => n + num(v, 'sum() element'), 0);
  return Number.isFinite(total) ? total : fail('sum() is too large');
});

fn('sorted', 'x reverse?', (h, [x, reverse]) => {
  const sign = reverse !== undefined && truthy(reverse) ? -1 : 1;
  return iterate(h, x!).sort((a, b) => sign * compare(h, a, b, 'sorted()'));
});

for (const [name, sign] of Object.entries({ min: -1, max: 1 })) {
  fn(name, '*args default?', (h, [args, fallback]) => {
    const list = args as Val[];
    const items = list.length === 1 ? iterate(h, list[0]!) : list;
    if (items.length > 0) {
      return items.reduce((best, v) => (compare(h, v, best, `${name}()`) * sign > 0 ? v : best));
    }
    return fallback !== undefined ? fallback : fail(`${name}() of an empty sequence`);
  });
}

fn('range', '*args', (h, [args]) => {
  const a = (args as Val[]).map((v) => int(v, 'range() argument'));
  if (a.length < 1 || a.length > 3) fail(`range() takes 1 to 3 arguments (${a.length} given)`);
  const [start, stop, step] = a.length === 1 ? [0, a[0]!, 1] : [a[0]!, a[1]!, a[2] ?? 1];
  if (step === 0) fail('range() step cannot be zero');
  const n = Math.max(0, Math.ceil((stop - start) / step));
  h.grow(n, 'range()');
  return Array.from({ length: n }, (_, i) => start + i * step);
});

/** On dicts these read keys (dicts double as Starlark structs); on other values, methods. */
fn('hasattr', 'x name', (_h, [x, name]) => {
  const key = str(name, 'hasattr() name');
  return x instanceof Map ? x.has(key) : (methodsOf(x!)?.has(key) ?? false);
});
fn('getattr', 'x name default?', (_h, [x, name, fallback]) => {
  const key = str(name, 'getattr() name');
  const found = x instanceof Map ? x.get(key) : undefined;
  if (found !== undefined) return found;
  return fallback !== undefined ? fallback : fail(`${typeName(x!)} has no field ${quote(key)}`);
});

/** dict(), dict(mapping), dict(pairs) and dict(..., key=value); also d.update(...). */
function toDict(h: Host, args: Val[], kwargs: [string, Val][]): Dict {
  if (args.length > 1) fail(`dict() takes at most 1 positional argument (${args.length} given)`);
  const src = args.length > 0 ? args[0]! : new Map<string, Val>();
  const pairs = src instanceof Map ? [...src] : iterate(h, src);
  const out: Dict = new Map();
  for (const pair of [...pairs, ...kwargs]) {
    if (!Array.isArray(pair) || pair.length !== 2)
      fail('dict() needs a dict or [key, value] pairs');
    out.set(dictKey(pair[0]!), pair[1]!);
  }
  h.charge(out.size);
  return out;
}
BUILTINS.set('dict', (h, _self, args, kwargs) => toDict(h, args, kwargs));

// ---- string methods ----

const stringFn = (name: string, params: string, impl: (h: Host, a: Args, s: string) => Val): void =>
  define<string>(STRING, name, params, impl);

stringFn('upper', '', (_h, _a, s) => s.toUpperCase());
stringFn('lower', '', (_h, _a, s) => s.toLowerCase());
for (const [name, left, right] of [
  ['strip', true, true],
  ['lstrip', true, false],
  ['rstrip', false, true],
] as const) {
  stringFn(name, 'chars?', (_h, [chars], s) => {
    const set = chars === undefined || chars === null ? ' \t\n\r\f\v' : str(chars, 'chars');
    let [i, j] = [0, s.length];
    while (left && i < j && set.includes(s[i]!)) i++;
    while (right && j > i && set.includes(s[j - 1]!)) j--;
    return s.slice(i, j);
  });
}
stringFn('startswith', 'prefix', (_h, [p], s) =>
  (Array.isArray(p) ? p : [p!]).some((x) => s.startsWith(str(x, 'startswith() prefix'))),
);
stringFn('endswith', 'suffix', (_h, [p], s) =>
  (Array.isArray(p) ? p : [p!]).some((x) => s.endsWith(str(x, 'endswith() suffix'))),
);
stringFn('find', 'sub', (_h, [sub], s) => s.indexOf(str(sub, 'find() argument')));
stringFn('index', 'sub', (_h, [sub], s) => {
  const i = s.indexOf(str(sub, 'index() argument'));
  return i >= 0 ? i : fail(`substring ${quote(sub as string)} not found`);
});
stringFn('split', 'sep?', (h, [sep], s) => {
  h.charge(s.length);
  // Without a separator, runs of whitespace split and the ends give no empty strings.
  if (sep === undefined || sep === null) return s.split(/\s+/).filter((w) => w !== '');
  const text = str(sep, 'split() separator');
  return text === '' ? fail('split() separator cannot be empty') : s.split(text);
});
stringFn('join', 'items', (h, [items], s) => {
  const parts = iterate(h, items!).map((v, i) =>
    typeof v === 'string' ? v : fail(`join() needs strings, but item ${i} is ${typeName(v)}`),
  );
  h.grow(parts.reduce((n, p) => n + p.length + s.length, 0) - s.length, 'string');
  return parts.join(s);
});
stringFn('replace', 'old new', (h, [a, b], s) => {
  const [old, rep] = [str(a, 'replace() old'), str(b, 'replace() new')];
  // Python inserts `new` around every character when `old` is empty.
  const parts = old === '' ? ['', ...s.split(''), ''] : s.split(old);
  h.grow(s.length + (parts.length - 1) * (rep.length - old.length), 'string');
  return parts.join(rep);
});

// ---- list methods ----

const listFn = (name: string, params: string, impl: (h: Host, a: Args, l: Val[]) => Val): void =>
  define<Val[]>(LIST, name, params, impl);

listFn('append', 'x', (h, [x], l) => {
  h.grow(l.length + 1, 'list');
  l.push(x!);
  return null;
});
listFn('extend', 'items', (h, [items], l) => {
  const more = iterate(h, items!);
  h.grow(l.length + more.length, 'list');
  for (const x of more) l.push(x);
  return null;
});
listFn('pop', 'index?', (_h, [i], l) =>
  l.length === 0
    ? fail('pop from an empty list')
    : l.splice(position(i ?? -1, l.length, 'list'), 1)[0]!,
);
listFn('index', 'x', (h, [x], l) => {
  const i = charged(h, l).findIndex((y) => equals(h, y, x!));
  return i >= 0 ? i : fail(`${repr(h, x!).slice(0, 40)} is not in the list`);
});
listFn('remove', 'x', (h, [x], l) => {
  const i = charged(h, l).findIndex((y) => equals(h, y, x!));
  if (i < 0) fail(`${repr(h, x!).slice(0, 40)} is not in the list`);
  l.splice(i, 1);
  return null;
});

// ---- dict methods ----

const dictFn = (name: string, params: string, impl: (h: Host, a: Args, d: Dict) => Val): void =>
  define<Dict>(DICT, name, params, impl);

dictFn('get', 'key default?', (_h, [k, fallback], d) => {
  const v = typeof k === 'string' ? d.get(k) : undefined;
  return v !== undefined ? v : (fallback ?? null);
});
dictFn('keys', '', (h, _a, d) => charged(h, [...d.keys()]));
dictFn('values', '', (h, _a, d) => charged(h, [...d.values()]));
dictFn('items', '', (h, _a, d) => charged(h, [...d.entries()]));
DICT.set('update', (h, self, args, kwargs) => {
  for (const [k, v] of toDict(h, args, kwargs)) (self as Dict).set(k, v);
  h.grow((self as Dict).size, 'dict');
  return null;
});
