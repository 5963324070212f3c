// The only callables: a fixed table of builtin functions and of methods per value type. Tables
// are Maps, so a name like "constructor" or "__proto__" is simply not found.
import { ExpressionError, fail } from './errors.js';
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
const METHODS = {
  string: new Map<string, Callable>(),
  list: new Map<string, Callable>(),
  dict: new Map<string, Callable>(),
};

/** The method table for a value's type, if it has methods. */
export function methodsOf(v: Val): Map<string, Callable> | undefined {
  if (typeof v === 'string') return METHODS.string;
  if (Array.isArray(v)) return METHODS.list;
  return v instanceof Map ? METHODS.dict : undefined;
}

/**
 * Matches arguments to a parameter list like "x sep? *args default?" (`?` optional, `*` collects
 * the remaining positionals; names after it are keyword-only). Missing optionals are undefined.
 */
function bind(name: string, spec: string[], args: Val[], kwargs: [string, Val][]): Args {
  const out: Args = spec.map(() => undefined);
  let used = 0;
  let positional = 0;
  for (const [i, p] of spec.entries()) {
    if (p.startsWith('*')) {
      out[i] = args.slice(used);
      used = args.length;
      break;
    }
    positional++;
    if (used < args.length) out[i] = args[used++];
  }
  if (used < args.length)
    fail(`${name}() takes at most ${positional} arguments (${args.length} given)`);
  for (const [k, v] of kwargs) {
    const i = spec.findIndex((p) => p.replace('?', '') === k);
    if (i < 0) fail(`${name}() got an unexpected keyword argument "${k}"`);
    if (out[i] !== undefined) fail(`${name}() got multiple values for "${k}"`);
    out[i] = v;
  }
  spec.forEach((p, i) => {
    if (out[i] === undefined && !p.endsWith('?') && !p.startsWith('*')) {
      fail(`${name}() is missing the argument "${p}"`);
    }
  });
  return out;
}

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

function finite(n: number, what: string): number {
  return Number.isFinite(n) ? n : fail(`${what}: number is too large`);
}

// ---- builtin functions ----

fn('len', 'x', (_h, [x]) => {
  if (typeof x === 'string' || Array.isArray(x)) return x.length;
  if (x instanceof Map) return x.size;
  return fail(`len() needs a string, list or dict, not ${typeName(x ?? null)}`);
});
fn('str', 'x?', (h, [x]) => (x === undefined ? '' : toStr(h, x)));
fn('repr', 'x', (h, [x]) => repr(h, x!));
fn('bool', 'x?', (_h, [x]) => x !== undefined && truthy(x));
fn('type', 'x', (_h, [x]) => typeName(x!));
fn('abs', 'x', (_h, [x]) => Math.abs(num(x, 'abs() argument')));

fn('int', 'x?', (_h, [x]) => {
  if (x === undefined || typeof x === 'boolean') return Number(x ?? 0);
  if (typeof x === 'number') return Math.trunc(x) || 0;
  const s = typeof x === 'string' ? x.trim() : fail(`int() cannot convert ${typeName(x)}`);
  if (!/^[+-]?\d+(_\d+)*$/.test(s)) fail(`int() cannot convert ${quote(s)} to an integer`);
  const n = Number(s.replace(/_/g, ''));
  return Number.isSafeInteger(n) ? n : fail(`int() value ${quote(s)} is too large`);
});

fn('float', 'x?', (_h, [x]) => {
  if (x === undefined || typeof x === 'boolean') return Number(x ?? 0);
  if (typeof x === 'number') return x;
  const s = typeof x === 'string' ? x.trim() : fail(`float() cannot convert ${typeName(x)}`);
  if (!/^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d+)?$/.test(s)) {
    fail(`float() cannot convert ${quote(s)} to a number`);
  }
  return finite(Number(s.replace(/_/g, '')), 'float()');
});

fn('list', 'x?', (h, [x]) => (x === undefined ? [] : iterate(h, x)));
fn('tuple', 'x?', (h, [x]) => (x === undefined ? [] : iterate(h, x)));
fn('reversed', 'x', (h, [x]) => iterate(h, x!).reverse());
fn('any', 'x', (h, [x]) => iterate(h, x!).some(truthy));
fn('all', 'x', (h, [x]) => iterate(h, x!).every(truthy));
fn('enumerate', 'x start?', (h, [x, start]) => {
  const from = start === undefined ? 0 : int(start, 'enumerate() start');
  return iterate(h, x!).map((item, i) => [from + i, item]);
});
fn('zip', '*lists', (h, [lists]) => {
  const columns = (lists as Val[]).map((l) => iterate(h, l));
  const n = columns.length === 0 ? 0 : Math.min(...columns.map((c) => c.length));
  return Array.from({ length: n }, (_, i) => columns.map((c) => c[i]!));
});

fn('sum', 'x start?', (h, [x, start]) => {
  let total = start === undefined ? 0 : num(start, 'sum() start');
  for (const item of iterate(h, x!)) total += num(item, 'sum() element');
  return finite(total, 'sum()');
});

fn('sorted', 'x reverse?', (h, [x, reverse]) => {
  const sign = reverse !== undefined && truthy(reverse) ? -1 : 1;
  return iterate(h, x!).sort((a, b) => sign * compare(h, a, b, 'sorted()'));
});

for (const [name, sign] of [
  ['min', -1],
  ['max', 1],
] as const) {
  fn(name, '*args default?', (h, [args, fallback]) => {
    const list = args as Val[];
    if (list.length === 0) fail(`${name}() needs at least one argument`);
    const items = list.length === 1 ? iterate(h, list[0]!) : list;
    if (items.length === 0) {
      return fallback !== undefined ? fallback : fail(`${name}() of an empty sequence`);
    }
    return items.reduce((best, v) => (compare(h, v, best, `${name}()`) * sign > 0 ? v : best));
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

fn('round', 'x ndigits?', (_h, [x, nd]) => {
  const n = num(x, 'round() argument');
  if (nd === undefined || nd === null) {
    const r = Math.round(n); // ties to even, as in Python
    return Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }
  const d = int(nd, 'round() ndigits');
  if (d >= 0) return Number(n.toFixed(Math.min(d, 100)));
  const scale = 10 ** -d;
  return Math.round(n / scale) * scale;
});

fn('hasattr', 'x name', (_h, [x, name]) => {
  const key = str(name, 'hasattr() name');
  return x instanceof Map ? x.has(key) : (methodsOf(x!)?.has(key) ?? false);
});

fn('getattr', 'x name default?', (_h, [x, name, fallback]) => {
  const key = str(name, 'getattr() name');
  const found = x instanceof Map ? x.get(key) : undefined;
  if (found !== undefined) return found;
  if (fallback !== undefined) return fallback;
  return fail(`${typeName(x!)} has no field ${quote(key)}`);
});

fn('fail', '*args', (h, [args]) => {
  throw new ExpressionError(`fail: ${(args as Val[]).map((v) => toStr(h, v)).join(' ')}`);
});

/** dict(), dict(mapping), dict(pairs) and dict(..., key=value). */
function toDict(h: Host, args: Val[], kwargs: [string, Val][]): Dict {
  if (args.length > 1) fail(`dict() takes at most 1 positional argument (${args.length} given)`);
  const out: Dict = new Map();
  const src = args[0];
  if (src instanceof Map) for (const [k, v] of src) out.set(k, v);
  else if (src !== undefined) {
    for (const pair of iterate(h, src)) {
      if (!Array.isArray(pair) || pair.length !== 2)
        fail('dict() needs a dict or [key, value] pairs');
      out.set(dictKey(pair[0]!), pair[1]!);
    }
  }
  for (const [k, v] of kwargs) out.set(k, v);
  h.charge(out.size);
  return out;
}
BUILTINS.set('dict', (h, _self, args, kwargs) => toDict(h, args, kwargs));

// ---- string methods ----

const S = METHODS.string;
const stringFn = (name: string, params: string, impl: (h: Host, a: Args, s: string) => Val): void =>
  define<string>(S, name, params, impl);

stringFn('upper', '', (_h, _a, s) => s.toUpperCase());
stringFn('lower', '', (_h, _a, s) => s.toLowerCase());
stringFn('capitalize', '', (_h, _a, s) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase());
stringFn('isdigit', '', (_h, _a, s) => /^[0-9]+$/.test(s));
for (const [name, left, right] of [
  ['strip', true, true],
  ['lstrip', true, false],
  ['rstrip', false, true],
] as const) {
  stringFn(name, 'chars?', (_h, [chars], s) => {
    if (chars === undefined || chars === null) {
      return left && right ? s.trim() : left ? s.trimStart() : s.trimEnd();
    }
    const set = str(chars, `${name}() chars`);
    let i = 0;
    let j = s.length;
    while (left && i < j && set.includes(s[i]!)) i++;
    while (right && j > i && set.includes(s[j - 1]!)) j--;
    return s.slice(i, j);
  });
}
for (const name of ['startswith', 'endswith'] as const) {
  stringFn(name, 'prefix', (_h, [p], s) => {
    const options = Array.isArray(p) ? p : [p!];
    return options.some((o) => {
      const text = str(o, `${name}() argument`);
      return name === 'startswith' ? s.startsWith(text) : s.endsWith(text);
    });
  });
}
stringFn('removeprefix', 'prefix', (_h, [p], s) => {
  const text = str(p, 'removeprefix() argument');
  return s.startsWith(text) ? s.slice(text.length) : s;
});
stringFn('removesuffix', 'suffix', (_h, [p], s) => {
  const text = str(p, 'removesuffix() argument');
  return text && s.endsWith(text) ? s.slice(0, -text.length) : s;
});
stringFn('find', 'sub start?', (_h, [sub, start], s) =>
  s.indexOf(
    str(sub, 'find() argument'),
    start === undefined || start === null ? 0 : int(start, 'find() start'),
  ),
);
stringFn('rfind', 'sub', (_h, [sub], s) => s.lastIndexOf(str(sub, 'rfind() argument')));
stringFn('index', 'sub', (_h, [sub], s) => {
  const i = s.indexOf(str(sub, 'index() argument'));
  return i >= 0 ? i : fail(`substring ${quote(sub as string)} not found`);
});
stringFn('count', 'sub', (h, [sub], s) => {
  const text = str(sub, 'count() argument');
  h.charge(s.length);
  return text === '' ? s.length + 1 : s.split(text).length - 1;
});

stringFn('split', 'sep? maxsplit?', (h, [sep, max], s) => {
  const limit = max === undefined ? -1 : int(max, 'split() maxsplit');
  h.charge(s.length);
  if (sep === undefined || sep === null) {
    // Runs of whitespace separate; leading and trailing whitespace gives no empty strings.
    const out: string[] = [];
    let rest = s.trimStart();
    while (rest && (limit < 0 || out.length < limit)) {
      const m = /\s+/.exec(rest);
      if (!m) break;
      out.push(rest.slice(0, m.index));
      rest = rest.slice(m.index + m[0].length);
    }
    if (rest) out.push(rest);
    return out;
  }
  const text = str(sep, 'split() separator');
  if (text === '') fail('split() separator cannot be empty');
  const parts = s.split(text);
  if (limit < 0 || parts.length <= limit + 1) return parts;
  return [...parts.slice(0, limit), parts.slice(limit).join(text)];
});
stringFn('splitlines', '', (h, _a, s) => {
  h.charge(s.length);
  const lines = s.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
});

stringFn('join', 'items', (h, [items], s) => {
  const parts = iterate(h, items!).map((v, i) =>
    typeof v === 'string' ? v : fail(`join() needs strings, but item ${i} is ${typeName(v)}`),
  );
  const length = parts.reduce((n, p) => n + p.length, 0) + s.length * Math.max(0, parts.length - 1);
  h.grow(length, 'string');
  return parts.join(s);
});

stringFn('replace', 'old new count?', (h, [a, b, c], s) => {
  const old = str(a, 'replace() old');
  const rep = str(b, 'replace() new');
  const limit = c === undefined ? -1 : int(c, 'replace() count');
  // Python inserts `new` around every character when `old` is empty.
  const parts = old === '' ? ['', ...s.split(''), ''] : s.split(old);
  const cut = limit < 0 ? parts.length : Math.min(parts.length, limit + 1);
  const head = parts.slice(0, cut);
  const tail = parts.slice(cut);
  const length = s.length + (head.length - 1) * (rep.length - old.length);
  h.grow(length, 'string');
  return head.join(rep) + (tail.length > 0 ? old + tail.join(old) : '');
});

/** "{} and {0} and {name}".format(...); "{{" and "}}" are literal braces. No format specs. */
S.set('format', (h, self, args, kwargs) => {
  const s = self as string;
  let out = '';
  let auto = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ((c === '{' || c === '}') && s[i + 1] === c) {
      out += c;
      i++;
      continue;
    }
    if (c === '}') fail('single "}" in format string');
    if (c !== '{') {
      out += c;
      continue;
    }
    const end = s.indexOf('}', i);
    if (end < 0) fail('unclosed "{" in format string');
    const field = s.slice(i + 1, end);
    i = end;
    const v = field === '' ? args[auto++] : /^\d+$/.test(field) ? args[Number(field)] : undefined;
    const value = v !== undefined ? v : kwargs.find(([k]) => k === field)?.[1];
    if (value === undefined) fail(`format() has no value for {${field}}`);
    out += toStr(h, value);
    if (out.length > h.maxLength) h.grow(out.length, 'string');
  }
  h.grow(out.length, 'string');
  return out;
});

// ---- list methods ----

const L = METHODS.list;
const listFn = (name: string, params: string, impl: (h: Host, a: Args, l: Val[]) => Val): void =>
  define<Val[]>(L, name, params, impl);

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
listFn('insert', 'index x', (h, [i, x], l) => {
  h.grow(l.length + 1, 'list');
  const at = int(i, 'insert() index');
  l.splice(Math.max(0, at < 0 ? at + l.length : at), 0, x!);
  return null;
});
listFn('pop', 'index?', (_h, [i], l) => {
  if (l.length === 0) fail('pop from an empty list');
  return l.splice(position(i ?? -1, l.length, 'list'), 1)[0]!;
});
const find = (h: Host, l: Val[], x: Val): number => {
  h.charge(l.length);
  return l.findIndex((y) => equals(h, y, x));
};
listFn('remove', 'x', (h, [x], l) => {
  const i = find(h, l, x!);
  if (i < 0) fail(`list.remove(x): ${repr(h, x!).slice(0, 40)} is not in the list`);
  l.splice(i, 1);
  return null;
});
listFn('index', 'x', (h, [x], l) => {
  const i = find(h, l, x!);
  return i >= 0 ? i : fail(`list.index(x): ${repr(h, x!).slice(0, 40)} is not in the list`);
});
listFn('count', 'x', (h, [x], l) => {
  h.charge(l.length);
  return l.filter((y) => equals(h, y, x!)).length;
});

// ---- dict methods ----

const D = METHODS.dict;
const dictFn = (name: string, params: string, impl: (h: Host, a: Args, d: Dict) => Val): void =>
  define<Dict>(D, name, params, impl);

dictFn('get', 'key default?', (_h, [k, fallback], d) => {
  const v = typeof k === 'string' ? d.get(k) : undefined;
  return v !== undefined ? v : (fallback ?? null);
});
dictFn('keys', '', (h, _a, d) => {
  h.charge(d.size);
  return [...d.keys()];
});
dictFn('values', '', (h, _a, d) => {
  h.charge(d.size);
  return [...d.values()];
});
dictFn('items', '', (h, _a, d) => {
  h.charge(d.size);
  return [...d.entries()];
});
dictFn('pop', 'key default?', (_h, [k, fallback], d) => {
  const key = dictKey(k!);
  const v = d.get(key);
  if (v === undefined)
    return fallback !== undefined ? fallback : fail(`key ${quote(key)} not found`);
  d.delete(key);
  return v;
});
dictFn('setdefault', 'key default?', (h, [k, fallback], d) => {
  const key = dictKey(k!);
  if (!d.has(key)) {
    h.grow(d.size + 1, 'dict');
    d.set(key, fallback ?? null);
  }
  return d.get(key)!;
});
D.set('update', (h, self, args, kwargs) => {
  const d = self as Dict;
  for (const [k, v] of toDict(h, args, kwargs)) d.set(k, v);
  h.grow(d.size, 'dict');
  return null;
});
