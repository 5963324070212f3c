// Recursive-descent parser producing a small AST. Every construct that can nest without bound
// (brackets, trailers such as `.a` `[0]` `(x)`, unary operators, `**`, conditionals,
// comprehension clauses, blocks) goes through `enter`, so nesting is capped at MAX_DEPTH and
// neither this parser nor the evaluator can overflow the JS stack. Runs of same-precedence
// operators (`a + b + c`, `x and y and z`) are kept flat for the same reason.
import { ExpressionSyntaxError } from './errors.js';
import { Lexer, type Token, type TokenKind } from './lexer.js';

export const MAX_DEPTH = 100;

export type BinOp = '+' | '-' | '*' | '/' | '//' | '%' | '**';
export type CmpOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in';

export type Expr =
  | { kind: 'lit'; value: null | boolean | number | string }
  | { kind: 'name'; name: string }
  | { kind: 'list'; items: Expr[] }
  | { kind: 'dict'; entries: [Expr, Expr][] }
  | { kind: 'attr'; obj: Expr; name: string }
  | { kind: 'index'; obj: Expr; index: Expr }
  | { kind: 'slice'; obj: Expr; lo: Expr | null; hi: Expr | null; step: Expr | null }
  | { kind: 'call'; callee: Expr; args: Expr[]; kwargs: [string, Expr][] }
  | { kind: 'unary'; op: '-' | '+' | 'not'; operand: Expr }
  | { kind: 'binary'; first: Expr; rest: [BinOp, Expr][] }
  | { kind: 'compare'; first: Expr; rest: [CmpOp, Expr][] }
  | { kind: 'logic'; op: 'and' | 'or'; operands: Expr[] }
  | { kind: 'cond'; test: Expr; then: Expr; else: Expr }
  | { kind: 'listcomp'; elt: Expr; clauses: Clause[] }
  | { kind: 'dictcomp'; key: Expr; value: Expr; clauses: Clause[] };

export type Clause = { kind: 'for'; target: Target; iter: Expr } | { kind: 'if'; cond: Expr };

export type Target =
  | Extract<Expr, { kind: 'name' }>
  | Extract<Expr, { kind: 'index' }>
  | { kind: 'tuple'; items: Target[] };

export type Stmt =
  | { kind: 'expr'; expr: Expr }
  | { kind: 'assign'; target: Target; value: Expr }
  | { kind: 'augassign'; target: Target; op: BinOp; value: Expr }
  | { kind: 'if'; branches: [Expr, Stmt[]][]; orelse: Stmt[] }
  | { kind: 'for'; target: Target; iter: Expr; body: Stmt[] }
  | { kind: 'pass' | 'break' | 'continue' };

const words = (s: string): Set<string> => new Set(s.split(' '));
const KEYWORDS = words('and or not in if elif else for pass break continue True False None');
/** Python keywords outside the subset: refused by name rather than as a puzzling parse error. */
const UNSUPPORTED = words(
  'def lambda while return class import from try except finally raise with yield del global nonlocal assert async await is as',
);
const CONSTANTS = new Map(Object.entries({ True: true, False: false, None: null }));
const COMPARISONS = words('== != < <= > >=');
const EXPR_START = words('( [ { - +');
const TOKEN_NOUNS = new Map(
  Object.entries({ eof: 'end of input', newline: 'end of line', indent: 'indentation' }),
);
const NOUNS = new Map(Object.entries({ lit: 'a literal', call: 'a function call', slice: 'a slice' }));

export function parseExpressionSource(source: string): Expr {
  return new Parser(new Lexer(source, false)).expressionMode();
}

export function parseProgramSource(source: string): Stmt[] {
  return new Parser(new Lexer(source, true)).programMode();
}

class Parser {
  private tok: Token;
  private ahead: Token | null = null;
  private depth = 0;
  private loops = 0;

  constructor(private readonly lexer: Lexer) {
    this.tok = lexer.next();
  }

  expressionMode(): Expr {
    if (this.at('eof')) throw this.error('the expression is empty', this.tok);
    const e = this.test();
    if (!this.at('eof')) throw this.unexpected();
    return e;
  }

  programMode(): Stmt[] {
    const body: Stmt[] = [];
    while (!this.at('eof')) body.push(...this.statement());
    return body;
  }

  // ---- token helpers ----

  private advance(): Token {
    const t = this.tok;
    this.tok = this.ahead ?? this.lexer.next();
    this.ahead = null;
    return t;
  }

  private peek(): Token {
    return (this.ahead ??= this.lexer.next());
  }

  /** A method, not `this.tok.kind ===`, which TypeScript would keep narrowed across advance(). */
  private at(kind: TokenKind): boolean {
    return this.tok.kind === kind;
  }

  /** Is the current token this operator or keyword? */
  private is(text: string, t: Token = this.tok): boolean {
    return (t.kind === 'op' || t.kind === 'name') && t.text === text;
  }

  /** Consumes the token if it is `text`. */
  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.advance();
    return true;
  }

  private expect(text: string): void {
    if (!this.accept(text)) throw this.unexpected(`"${text}"`);
  }

  private enter(at: Token): void {
    if (++this.depth > MAX_DEPTH) {
      throw this.error(`nested too deeply (the limit is ${MAX_DEPTH} levels)`, at);
    }
  }

  private error(what: string, at: Token): ExpressionSyntaxError {
    return new ExpressionSyntaxError(what, at.line, at.column);
  }

  private unexpected(expected?: string): ExpressionSyntaxError {
    const t = this.tok;
    if (t.kind === 'name' && UNSUPPORTED.has(t.text)) {
      const hint = t.text === 'is' ? ' (use == or !=)' : '';
      return this.error(`"${t.text}" is not supported${hint}`, t);
    }
    const found =
      TOKEN_NOUNS.get(t.kind) ??
      (t.kind === 'number' ? `number ${t.text}` : t.kind === 'string' ? 'a string' : `"${t.text}"`);
    return this.error(expected ? `expected ${expected} but found ${found}` : `unexpected ${found}`, t);
  }

  // ---- statements ----

  private statement(): Stmt[] {
    if (this.is('if')) return [this.ifStatement()];
    if (this.is('for')) return [this.forStatement()];
    return this.simpleLine();
  }

  /** One line of `;`-separated simple statements. */
  private simpleLine(): Stmt[] {
    const out = [this.simpleStatement()];
    while (this.accept(';') && !this.at('newline') && !this.at('eof')) {
      out.push(this.simpleStatement());
    }
    if (!this.at('eof') && !this.at('newline')) throw this.unexpected();
    if (this.at('newline')) this.advance();
    return out;
  }

  private simpleStatement(): Stmt {
    const start = this.tok;
    if (this.accept('pass')) return { kind: 'pass' };
    if (this.is('break') || this.is('continue')) {
      if (this.loops === 0) throw this.error(`"${start.text}" outside a loop`, start);
      this.advance();
      return { kind: start.text as 'break' | 'continue' };
    }
    const e = this.testList();
    if (this.accept('=')) return { kind: 'assign', target: this.target(e, start), value: this.testList() };
    const aug = this.tok;
    if (aug.kind !== 'op' || !/^(\+|-|\*|\/|\/\/|%)=$/.test(aug.text)) return { kind: 'expr', expr: e };
    const target = this.target(e, start);
    if (target.kind === 'tuple') throw this.error(`cannot use ${aug.text} on a tuple`, start);
    this.advance();
    return { kind: 'augassign', target, op: aug.text.slice(0, -1) as BinOp, value: this.testList() };
  }

  private ifStatement(): Stmt {
    const branches: [Expr, Stmt[]][] = [];
    do {
      this.advance(); // `if` or `elif`
      const cond = this.test();
      branches.push([cond, this.block()]);
    } while (this.is('elif'));
    return { kind: 'if', branches, orelse: this.accept('else') ? this.block() : [] };
  }

  private forStatement(): Stmt {
    this.advance();
    const start = this.tok;
    const target = this.target(this.targetList(), start);
    this.expect('in');
    const iter = this.testList();
    this.loops++;
    const body = this.block();
    this.loops--;
    return { kind: 'for', target, iter, body };
  }

  /** `:` then either statements on the same line or an indented block. */
  private block(): Stmt[] {
    this.enter(this.tok);
    this.expect(':');
    let body: Stmt[] = [];
    if (this.accept('') || !this.at('newline')) body = this.simpleLine();
    else {
      this.advance();
      if (!this.at('indent')) throw this.error('expected an indented block', this.tok);
      this.advance();
      while (!this.at('dedent') && !this.at('eof')) body.push(...this.statement());
      if (this.at('dedent')) this.advance();
    }
    this.depth--;
    return body;
  }

  /** Checks that an expression parsed on the left of `=` (or after `for`) can be assigned to. */
  private target(e: Expr, at: Token): Target {
    if (e.kind === 'name' || e.kind === 'index') return e;
    if (e.kind === 'list') return { kind: 'tuple', items: e.items.map((i) => this.target(i, at)) };
    if (e.kind === 'attr') {
      throw this.error(`cannot assign to field "${e.name}" (use x["${e.name}"] = ...)`, at);
    }
    throw this.error(`cannot assign to ${NOUNS.get(e.kind) ?? 'an expression'}`, at);
  }

  // ---- expressions, lowest precedence first ----

  /** Expressions separated by commas, as a tuple (list): `a, b = b, a`. */
  private testList(): Expr {
    const first = this.test();
    if (!this.is(',')) return first;
    const items = [first];
    while (this.accept(',') && this.startsExpression()) items.push(this.test());
    return { kind: 'list', items };
  }

  /** Loop targets stop before `in`, so they are parsed at postfix level. */
  private targetList(): Expr {
    const first = this.postfix();
    if (!this.is(',')) return first;
    const items = [first];
    while (this.accept(',') && !this.is('in')) items.push(this.postfix());
    return { kind: 'list', items };
  }

  private startsExpression(): boolean {
    const t = this.tok;
    if (t.kind === 'name') return !KEYWORDS.has(t.text) || t.text === 'not' || CONSTANTS.has(t.text);
    return t.kind === 'number' || t.kind === 'string' || (t.kind === 'op' && EXPR_START.has(t.text));
  }

  private test(): Expr {
    const then = this.or();
    if (!this.is('if')) return then;
    this.enter(this.advance());
    const test = this.or();
    this.expect('else');
    const otherwise = this.test();
    this.depth--;
    return { kind: 'cond', test, then, else: otherwise };
  }

  private or(): Expr {
    return this.logic('or', () => this.and());
  }

  private and(): Expr {
    return this.logic('and', () => this.not());
  }

  private logic(op: 'and' | 'or', next: () => Expr): Expr {
    const operands = [next()];
    while (this.accept(op)) operands.push(next());
    return operands.length > 1 ? { kind: 'logic', op, operands } : operands[0]!;
  }

  private not(): Expr {
    if (!this.is('not')) return this.comparison();
    this.enter(this.advance());
    const operand = this.not();
    this.depth--;
    return { kind: 'unary', op: 'not', operand };
  }

  private comparison(): Expr {
    const sum = (): Expr => this.chain(['+', '-'], () => this.term());
    const first = sum();
    const rest: [CmpOp, Expr][] = [];
    for (;;) {
      let op: CmpOp;
      if (this.tok.kind === 'op' && COMPARISONS.has(this.tok.text)) op = this.tok.text as CmpOp;
      else if (this.is('in')) op = 'in';
      else if (this.is('not') && this.is('in', this.peek())) op = 'not in';
      else if (this.is('is')) throw this.unexpected();
      else break;
      if (op === 'not in') this.advance();
      this.advance();
      rest.push([op, sum()]);
    }
    return rest.length > 0 ? { kind: 'compare', first, rest } : first;
  }

  private term(): Expr {
    return this.chain(['*', '/', '//', '%'], () => this.factor());
  }

  private chain(ops: string[], next: () => Expr): Expr {
    const first = next();
    const rest: [BinOp, Expr][] = [];
    while (this.tok.kind === 'op' && ops.includes(this.tok.text)) {
      rest.push([this.advance().text as BinOp, next()]);
    }
    return rest.length > 0 ? { kind: 'binary', first, rest } : first;
  }

  private factor(): Expr {
    if (!this.is('-') && !this.is('+')) return this.power();
    const t = this.advance();
    this.enter(t);
    const operand = this.factor();
    this.depth--;
    if (operand.kind === 'lit' && typeof operand.value === 'number') {
      return { kind: 'lit', value: t.text === '-' ? -operand.value : operand.value };
    }
    return { kind: 'unary', op: t.text as '-' | '+', operand };
  }

  private power(): Expr {
    const base = this.postfix();
    if (!this.is('**')) return base;
    this.enter(this.advance());
    const exponent = this.factor(); // right-associative; binds tighter than a unary minus on its left
    this.depth--;
    return { kind: 'binary', first: base, rest: [['**', exponent]] };
  }

  /** An atom followed by `.name`, `[index]`, `[a:b]` and `(args)`; each one is a level. */
  private postfix(): Expr {
    let e = this.atom();
    const saved = this.depth;
    while (this.is('.') || this.is('(') || this.is('[')) {
      const t = this.advance();
      this.enter(t);
      if (t.text === '(') e = this.call(e);
      else if (t.text === '[') e = this.subscript(e);
      else if (this.at('name')) e = { kind: 'attr', obj: e, name: this.advance().text };
      else throw this.unexpected('a field name');
    }
    this.depth = saved;
    return e;
  }

  private call(callee: Expr): Expr {
    const args: Expr[] = [];
    const kwargs: [string, Expr][] = [];
    while (!this.is(')')) {
      if (this.at('name') && this.is('=', this.peek())) {
        const name = this.advance();
        this.advance();
        if (kwargs.some(([k]) => k === name.text)) {
          throw this.error(`keyword argument "${name.text}" repeated`, name);
        }
        kwargs.push([name.text, this.test()]);
      } else {
        if (kwargs.length > 0) throw this.error('positional argument follows keyword argument', this.tok);
        const arg = this.test();
        // A lone generator argument: any(x > 0 for x in xs).
        args.push(this.is('for') && args.length === 0 ? this.listComp(arg) : arg);
      }
      if (!this.accept(',')) break;
    }
    this.expect(')');
    return { kind: 'call', callee, args, kwargs };
  }

  private subscript(obj: Expr): Expr {
    const lo = this.is(':') ? null : this.test();
    if (lo && this.accept(']')) return { kind: 'index', obj, index: lo };
    if (!this.accept(':')) throw this.unexpected('"]"');
    const hi = this.is(':') || this.is(']') ? null : this.test();
    const step = this.accept(':') && !this.is(']') ? this.test() : null;
    this.expect(']');
    return { kind: 'slice', obj, lo, hi, step };
  }

  private atom(): Expr {
    const t = this.tok;
    if (t.kind === 'number') return { kind: 'lit', value: this.advance().value };
    if (t.kind === 'string') {
      let value = '';
      while (this.at('string')) value += this.advance().value as string; // "a" "b" == "ab"
      return { kind: 'lit', value };
    }
    if (t.kind === 'name' && !UNSUPPORTED.has(t.text)) {
      const constant = CONSTANTS.get(t.text);
      if (constant !== undefined) this.advance();
      if (constant !== undefined) return { kind: 'lit', value: constant };
      if (!KEYWORDS.has(t.text)) return { kind: 'name', name: this.advance().text };
    }
    if (!this.is('(') && !this.is('[') && !this.is('{')) throw this.unexpected();
    this.enter(t);
    this.advance();
    const e = t.text === '(' ? this.parens() : t.text === '[' ? this.listDisplay() : this.dictDisplay();
    this.depth--;
    return e;
  }

  /** `()` is an empty tuple, `(x)` is x, `(x,)` and `(x, y)` are tuples (lists here). */
  private parens(): Expr {
    if (this.accept(')')) return { kind: 'list', items: [] };
    const first = this.test();
    if (this.is('for')) return this.closed(this.listComp(first), ')');
    if (this.accept(')')) return first;
    return { kind: 'list', items: this.rest(first, ')') };
  }

  private listDisplay(): Expr {
    if (this.accept(']')) return { kind: 'list', items: [] };
    const first = this.test();
    if (this.is('for')) return this.closed(this.listComp(first), ']');
    return { kind: 'list', items: this.rest(first, ']') };
  }

  private closed(e: Expr, close: string): Expr {
    this.expect(close);
    return e;
  }

  /** The remaining comma-separated items of a display, through the closing bracket. */
  private rest(first: Expr, close: string): Expr[] {
    const items = [first];
    while (this.accept(',') && !this.is(close)) items.push(this.test());
    this.expect(close);
    return items;
  }

  private dictDisplay(): Expr {
    if (this.accept('}')) return { kind: 'dict', entries: [] };
    const entry = (): [Expr, Expr] => {
      const key = this.test();
      if (this.is(',') || this.is('}')) throw this.error('set literals are not supported', this.tok);
      this.expect(':');
      return [key, this.test()];
    };
    const [key, value] = entry();
    if (this.is('for')) return this.closed({ kind: 'dictcomp', key, value, clauses: this.clauses() }, '}');
    const entries = [[key, value] as [Expr, Expr]];
    while (this.accept(',') && !this.is('}')) entries.push(entry());
    this.expect('}');
    return { kind: 'dict', entries };
  }

  private listComp(elt: Expr): Expr {
    return { kind: 'listcomp', elt, clauses: this.clauses() };
  }

  /** `for x in xs` followed by more `for` and `if` clauses; each clause is a level. */
  private clauses(): Clause[] {
    const out: Clause[] = [];
    while (this.is('for') || (out.length > 0 && this.is('if'))) {
      const t = this.advance();
      this.enter(t);
      if (t.text === 'if') {
        out.push({ kind: 'if', cond: this.or() });
        continue;
      }
      const start = this.tok;
      const target = this.target(this.targetList(), start);
      this.expect('in');
      out.push({ kind: 'for', target, iter: this.or() });
    }
    this.depth -= out.length;
    return out;
  }
}
