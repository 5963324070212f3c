// Tree-walking evaluator. Every node visit, statement and loop iteration is a step; bulk work
// inside operators and builtins is charged too (one step per 256 elements), so both the step
// limit and the clock bound a hostile program. Scope values are copied in lazily, on first use
// of each name, so assignments and mutations only ever touch the copies.
import { BUILTINS, methodsOf } from './builtins.js';
import { ExpressionError, fail } from './errors.js';
import type { Clause, Expr, Stmt, Target } from './parser.js';
import {
  binop,
  compareOp,
  dictKey,
  fromHost,
  getItem,
  iterate,
  setItem,
  slice,
  truthy,
  typeName,
  type Dict,
  type Host,
  type Val,
} from './values.js';

export interface Limits {
  /** Evaluation steps (node visits, loop iterations, bulk work); default 100_000. */
  maxSteps?: number;
  /** Wall-clock budget; default 1000 ms. */
  maxMillis?: number;
  /** Longest string or list a computation may build; default 1_000_000. */
  maxLength?: number;
}

const limit = (v: number | undefined, fallback: number): number =>
  typeof v === 'number' && v >= 0 ? v : fallback;

export class Interpreter implements Host {
  readonly maxSteps: number;
  readonly maxMillis: number;
  readonly maxLength: number;
  private readonly deadline: number;
  private steps = 0;
  private work = 0;
  private readonly locals = new Map<string, Val>();
  /** Comprehension variables, innermost last; they do not leak into `locals`. */
  private readonly frames: Map<string, Val>[] = [];
  /** Scope values already copied in. */
  private readonly imported = new Map<string, Val>();

  constructor(
    private readonly scope: Record<string, unknown>,
    limits: Limits,
  ) {
    this.maxSteps = limit(limits.maxSteps, 100_000);
    this.maxMillis = limit(limits.maxMillis, 1000);
    this.maxLength = limit(limits.maxLength, 1_000_000);
    this.deadline = performance.now() + this.maxMillis;
  }

  // ---- budget ----

  private tick(): void {
    if (++this.steps > this.maxSteps || (this.steps & 127) === 0) this.checkBudget();
  }

  private checkBudget(): void {
    if (this.steps > this.maxSteps) fail(`expression took more than ${this.maxSteps} steps`);
    if (performance.now() > this.deadline) fail(`expression took more than ${this.maxMillis} ms`);
  }

  charge(units: number): void {
    this.work += units;
    if (this.work < 256) return;
    this.steps += Math.floor(this.work / 256);
    this.work %= 256;
    this.checkBudget();
  }

  grow(length: number, what: string): void {
    if (length > this.maxLength) {
      const unit = what === 'string' ? 'characters' : 'elements';
      fail(`${what} would have ${length} ${unit}, more than the limit of ${this.maxLength}`);
    }
    this.charge(length);
  }

  // ---- statements ----

  /** The last statement's value if it is an expression, else `result` if assigned, else None. */
  run(body: Stmt[]): Val {
    const last = body.length - 1;
    for (let i = 0; i <= last; i++) {
      const s = body[i]!;
      if (i === last && s.kind === 'expr') return this.eval(s.expr);
      this.exec(s);
    }
    return this.locals.get('result') ?? null;
  }

  private exec(s: Stmt): void {
    this.tick();
    if (s.kind === 'expr') this.eval(s.expr);
    else if (s.kind === 'assign') this.assign(s.target, this.eval(s.value), this.locals);
    else if (s.kind === 'augassign') this.augmented(s);
    else if (s.kind === 'if') {
      const branch = s.branches.find(([cond]) => truthy(this.eval(cond)));
      for (const inner of branch ? branch[1] : s.orelse) this.exec(inner);
    } else if (s.kind === 'for') {
      for (const item of iterate(this, this.eval(s.iter))) {
        this.tick();
        this.assign(s.target, item, this.locals);
        for (const inner of s.body) this.exec(inner);
      }
    }
  }

  private assign(target: Target, value: Val, frame: Map<string, Val>): void {
    if (target.kind === 'name') frame.set(target.name, value);
    else if (target.kind === 'index') {
      setItem(this, this.eval(target.obj), this.eval(target.index), value);
    } else {
      const items = iterate(this, value);
      if (items.length !== target.items.length) {
        fail(`cannot unpack ${items.length} values into ${target.items.length} targets`);
      }
      target.items.forEach((t, i) => this.assign(t, items[i]!, frame));
    }
  }

  private augmented(s: Extract<Stmt, { kind: 'augassign' }>): void {
    const { target } = s;
    const obj = target.kind === 'index' ? this.eval(target.obj) : null;
    const key = target.kind === 'index' ? this.eval(target.index) : null;
    const current = target.kind === 'name' ? this.lookup(target.name) : getItem(obj, key, 'value');
    const operand = this.eval(s.value);
    let next: Val;
    if (s.op === '+' && Array.isArray(current) && Array.isArray(operand)) {
      // `xs += ys` extends the list in place, as in Python.
      this.grow(current.length + operand.length, 'list');
      for (const x of operand.slice()) current.push(x);
      next = current;
    } else {
      next = binop(this, s.op, current, operand);
    }
    if (target.kind === 'name') this.locals.set(target.name, next);
    else setItem(this, obj, key, next);
  }

  // ---- expressions ----

  private eval(e: Expr): Val {
    this.tick();
    switch (e.kind) {
      case 'lit':
        return e.value;
      case 'name':
        return this.lookup(e.name);
      case 'list':
        return e.items.map((item) => this.eval(item));
      case 'dict': {
        const d: Dict = new Map();
        for (const [k, v] of e.entries) d.set(dictKey(this.eval(k)), this.eval(v));
        return d;
      }
      case 'attr':
        return this.attr(this.eval(e.obj), e.obj, e.name);
      case 'index':
        return getItem(this.eval(e.obj), this.eval(e.index), label(e.obj) ?? 'dict');
      case 'slice': {
        const part = (x: Expr | null): Val => (x ? this.eval(x) : null);
        return slice(this, this.eval(e.obj), part(e.lo), part(e.hi), part(e.step));
      }
      case 'call':
        return this.call(e);
      case 'unary': {
        const v = this.eval(e.operand);
        if (e.op === 'not') return !truthy(v);
        if (typeof v !== 'number') fail(`bad operand type for unary ${e.op}: ${typeName(v)}`);
        return e.op === '-' ? -v : v;
      }
      case 'binary': {
        let acc = this.eval(e.first);
        for (const [op, right] of e.rest) acc = binop(this, op, acc, this.eval(right));
        return acc;
      }
      case 'compare': {
        let left = this.eval(e.first);
        for (const [op, r] of e.rest) {
          const right = this.eval(r);
          if (!compareOp(this, op, left, right)) return false;
          left = right;
        }
        return true;
      }
      case 'logic': {
        let v: Val = null;
        for (const operand of e.operands) {
          v = this.eval(operand);
          if (truthy(v) === (e.op === 'or')) return v; // short-circuit returns the operand
        }
        return v;
      }
      case 'cond':
        return truthy(this.eval(e.test)) ? this.eval(e.then) : this.eval(e.else);
      case 'listcomp': {
        const out: Val[] = [];
        this.comprehend(e.clauses, () => {
          this.grow(out.length + 1, 'list');
          out.push(this.eval(e.elt));
        });
        return out;
      }
      case 'dictcomp': {
        const out: Dict = new Map();
        this.comprehend(e.clauses, () => {
          const key = dictKey(this.eval(e.key));
          out.set(key, this.eval(e.value));
        });
        return out;
      }
    }
  }

  /** A name's value: comprehension variables, then locals, then the scope (copied on first use). */
  private find(name: string): Val | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const v = this.frames[i]!.get(name);
      if (v !== undefined) return v;
    }
    const v = this.locals.get(name) ?? this.imported.get(name);
    if (v !== undefined || !Object.hasOwn(this.scope, name)) return v;
    const copy = fromHost(this.scope[name], name, this.maxLength);
    this.imported.set(name, copy);
    return copy;
  }

  private lookup(name: string): Val {
    const v = this.find(name);
    if (v !== undefined) return v;
    if (BUILTINS.has(name)) fail(`${name} is a function; call it as ${name}(...)`);
    const known = [...new Set([...Object.keys(this.scope), ...this.locals.keys()])];
    const list = known.length > 30 ? `${known.slice(0, 30).join(', ')}, ...` : known.join(', ');
    return fail(`name "${name}" is not defined (known: ${list || 'none'})`);
  }

  /** `a.b` reads key "b" of a dict (Starlark structs); methods are only reachable by calling. */
  private attr(obj: Val, objExpr: Expr, name: string): Val {
    const who = label(objExpr);
    if (obj instanceof Map) {
      const v = obj.get(name);
      if (v !== undefined) return v;
      if (who === null) return fail(`dict has no field "${name}"`);
      return fail(
        `${who} has no field "${name}" (use getattr(${who}, "${name}", default) for optional fields)`,
      );
    }
    if (methodsOf(obj)?.has(name))
      fail(`${name} is a method of ${typeName(obj)}; call it as .${name}()`);
    const subject = who === null ? typeName(obj) : `${who} is ${typeName(obj)} and`;
    return fail(`${subject} has no field "${name}"`);
  }

  private call(e: Extract<Expr, { kind: 'call' }>): Val {
    const { callee } = e;
    const args = (): Val[] => e.args.map((a) => this.eval(a));
    const kwargs = (): [string, Val][] => e.kwargs.map(([k, v]) => [k, this.eval(v)]);
    if (callee.kind === 'name' && this.find(callee.name) === undefined) {
      const builtin = BUILTINS.get(callee.name);
      if (!builtin) fail(`unknown function "${callee.name}"`);
      return builtin(this, null, args(), kwargs());
    }
    if (callee.kind === 'attr') {
      const self = this.eval(callee.obj);
      const method = methodsOf(self)?.get(callee.name);
      if (method) return method(this, self, args(), kwargs());
      const who = label(callee.obj) ?? typeName(self);
      if (self instanceof Map && self.has(callee.name)) {
        fail(`${who}.${callee.name} is ${typeName(self.get(callee.name)!)}, not a function`);
      }
      return fail(`unknown method "${callee.name}" for ${typeName(self)}`);
    }
    const v = this.eval(callee);
    return fail(`${label(callee) ?? 'value'} is ${typeName(v)}, not a function`);
  }

  private comprehend(clauses: Clause[], emit: () => void): void {
    this.frames.push(new Map());
    try {
      this.clause(clauses, 0, emit);
    } finally {
      this.frames.pop();
    }
  }

  private clause(clauses: Clause[], i: number, emit: () => void): void {
    const c = clauses[i];
    if (!c) return emit();
    if (c.kind === 'if') {
      if (truthy(this.eval(c.cond))) this.clause(clauses, i + 1, emit);
      return;
    }
    const frame = this.frames[this.frames.length - 1]!;
    for (const item of iterate(this, this.eval(c.iter))) {
      this.tick();
      this.assign(c.target, item, frame);
      this.clause(clauses, i + 1, emit);
    }
  }
}

/** Source-like name for simple receivers (`input.config`) so messages can say which value. */
function label(e: Expr): string | null {
  if (e.kind === 'name') return e.name;
  if (e.kind !== 'attr') return null;
  const inner = label(e.obj);
  return inner === null ? null : `${inner}.${e.name}`;
}

/** Turns a JS engine limit hit anyway (stack, string length) into an ordinary ExpressionError. */
export function guard<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof RangeError)
      throw new ExpressionError(`expression is too large to evaluate (${err.message})`);
    throw err;
  }
}
