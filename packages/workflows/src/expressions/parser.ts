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

const KEYWORDS = new Set(
  'and or not in if elif else for pass break continue True False None'.split(' '),
);
/** Python keywords outside the subset: refused by name rather than as a puzzling parse error. */
const UNSUPPORTED = new Set(
  'def lambda while return class import from try except finally raise with yield del global nonlocal assert async await is as'.split(
    ' ',
  ),
);
const CONSTANTS = new Map<string, null | boolean>([
  ['True', true],
  ['False', false],
  ['None', null],
]);
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const AUGMENTED = new Map<string, BinOp>([
  ['+=', '+'],
  ['-=', '-'],
  ['*=', '*'],
  ['/=', '/'],
  ['//=', '//'],
  ['%=', '%'],
]);
const TOKEN_NOUNS = new Map([
  ['eof', 'end of input'],
  ['newline', 'end of line'],
  ['indent', 'indentation'],
  ['dedent', 'end of block'],
  ['string', 'a string'],
]);
const EXPR_START = new Set(['(', '[', '{', '-', '+']);
const NOUNS: Record<Expr['kind'], string> = {
  lit: 'a literal',
  name: 'a name',
  list: 'a list',
  dict: 'a dict',
  attr: 'a field',
  index: 'an index',
  slice: 'a slice',
  call: 'a function call',
  unary: 'an operator',
  binary: 'an operator',
  compare: 'a comparison',
  logic: 'an operator',
  cond: 'a conditional expression',
  listcomp: 'a comprehension',
  dictcomp: 'a comprehension',
};

export function parseExpressionSource(source: string): Expr {
  const p = new Parser(new Lexer(source, false));
  return p.expressionMode();
}

export function parseProgramSource(source: string): Stmt[] {
  const p = new Parser(new Lexer(source, true));
  return p.programMode();
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

  /** A method rather than `this.tok.kind`, which TypeScript would wrongly keep narrowed across advance(). */
  private at(kind: TokenKind): boolean {
    return this.tok.kind === kind;
  }

  private peek(): Token {
    return (this.ahead ??= this.lexer.next());
  }

  private isOp(text: string, t: Token = this.tok): boolean {
    return t.kind === 'op' && t.text === text;
  }

  private isKw(word: string): boolean {
    return this.at('name') && this.tok.text === word;
  }

  private expectOp(text: string): void {
    if (!this.isOp(text)) throw this.unexpected(`"${text}"`);
    this.advance();
  }

  private expectKw(word: string): void {
    if (!this.isKw(word)) throw this.unexpected(`"${word}"`);
    this.advance();
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
      TOKEN_NOUNS.get(t.kind) ?? (t.kind === 'number' ? `number ${t.text}` : `"${t.text}"`);
    if (expected) return this.error(`expected ${expected} but found ${found}`, t);
    return this.error(`unexpected ${found}`, t);
  }

  // ---- statements ----

  private statement(): Stmt[] {
    if (this.isKw('if')) return [this.ifStatement()];
    if (this.isKw('for')) return [this.forStatement()];
    return this.simpleLine();
  }

  /** One line of `;`-separated simple statements. */
  private simpleLine(): Stmt[] {
    const out = [this.simpleStatement()];
    while (this.isOp(';')) {
      this.advance();
      if (this.at('newline') || this.at('eof')) break;
      out.push(this.simpleStatement());
    }
    if (this.at('newline')) this.advance();
    else if (!this.at('eof')) throw this.unexpected();
    return out;
  }

  private simpleStatement(): Stmt {
    const start = this.tok;
    if (this.isKw('pass')) {
      this.advance();
      return { kind: 'pass' };
    }
    if (this.isKw('break') || this.isKw('continue')) {
      if (this.loops === 0) throw this.error(`"${start.text}" outside a loop`, start);
      this.advance();
      return { kind: start.text as 'break' | 'continue' };
    }
    const e = this.testList();
    if (this.isOp('=')) {
      this.advance();
      return { kind: 'assign', target: this.target(e, start), value: this.testList() };
    }
    const op = this.at('op') ? AUGMENTED.get(this.tok.text) : undefined;
    if (op) {
      const target = this.target(e, start);
      if (target.kind === 'tuple')
        throw this.error(`cannot use ${this.tok.text} on a tuple`, start);
      this.advance();
      return { kind: 'augassign', target, op, value: this.testList() };
    }
    return { kind: 'expr', expr: e };
  }

  private ifStatement(): Stmt {
    const branches: [Expr, Stmt[]][] = [];
    do {
      this.advance(); // `if` or `elif`
      const cond = this.test();
      branches.push([cond, this.block()]);
    } while (this.isKw('elif'));
    let orelse: Stmt[] = [];
    if (this.isKw('else')) {
      this.advance();
      orelse = this.block();
    }
    return { kind: 'if', branches, orelse };
  }

  private forStatement(): Stmt {
    this.advance();
    const start = this.tok;
    const target = this.target(this.targetList(), start);
    this.expectKw('in');
    const iter = this.testList();
    this.loops++;
    const body = this.block();
    this.loops--;
    return { kind: 'for', target, iter, body };
  }

  /** `:` then either statements on the same line or an indented block. */
  private block(): Stmt[] {
    const colon = this.tok;
    this.expectOp(':');
    this.enter(colon);
    let body: Stmt[] = [];
    if (this.at('newline')) {
      this.advance();
      if (!this.at('indent')) throw this.error('expected an indented block', this.tok);
      this.advance();
      while (!this.at('dedent') && !this.at('eof')) body.push(...this.statement());
      if (this.at('dedent')) this.advance();
    } else {
      body = this.simpleLine();
    }
    this.depth--;
    return body;
  }

  /** Checks that an expression parsed on the left of `=` (or after `for`) can be assigned to. */
  private target(e: Expr, at: Token): Target {
    switch (e.kind) {
      case 'name':
      case 'index':
        return e;
      case 'list':
        return { kind: 'tuple', items: e.items.map((item) => this.target(item, at)) };
      case 'attr':
        throw this.error(`cannot assign to field "${e.name}" (use x["${e.name}"] = ...)`, at);
      default:
        throw this.error(`cannot assign to ${NOUNS[e.kind]}`, at);
    }
  }

  // ---- expressions, lowest precedence first ----

  /** Expressions separated by commas, as a tuple (list): `a, b = b, a`. */
  private testList(): Expr {
    const first = this.test();
    if (!this.isOp(',')) return first;
    const items = [first];
    while (this.isOp(',')) {
      this.advance();
      if (!this.startsExpression()) break;
      items.push(this.test());
    }
    return { kind: 'list', items };
  }

  /** Loop targets stop before `in`, so they are parsed at postfix level. */
  private targetList(): Expr {
    const first = this.postfix();
    if (!this.isOp(',')) return first;
    const items = [first];
    while (this.isOp(',')) {
      this.advance();
      if (this.isKw('in')) break;
      items.push(this.postfix());
    }
    return { kind: 'list', items };
  }

  private startsExpression(): boolean {
    const t = this.tok;
    if (t.kind === 'number' || t.kind === 'string') return true;
    if (t.kind === 'name')
      return !KEYWORDS.has(t.text) || t.text === 'not' || CONSTANTS.has(t.text);
    return t.kind === 'op' && EXPR_START.has(t.text);
  }

  private test(): Expr {
    const then = this.or();
    if (!this.isKw('if')) return then;
    this.enter(this.advance());
    const test = this.or();
    this.expectKw('else');
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
    const first = next();
    if (!this.isKw(op)) return first;
    const operands = [first];
    while (this.isKw(op)) {
      this.advance();
      operands.push(next());
    }
    return { kind: 'logic', op, operands };
  }

  private not(): Expr {
    if (!this.isKw('not')) return this.comparison();
    this.enter(this.advance());
    const operand = this.not();
    this.depth--;
    return { kind: 'unary', op: 'not', operand };
  }

  private comparison(): Expr {
    const first = this.chain(['+', '-'], () => this.term());
    const rest: [CmpOp, Expr][] = [];
    for (;;) {
      let op: CmpOp;
      if (this.at('op') && COMPARISONS.has(this.tok.text)) op = this.tok.text as CmpOp;
      else if (this.isKw('in')) op = 'in';
      else if (this.isKw('not') && this.peek().kind === 'name' && this.peek().text === 'in') {
        this.advance();
        op = 'not in';
      } else if (this.isKw('is')) throw this.unexpected();
      else break;
      this.advance();
      rest.push([op, this.chain(['+', '-'], () => this.term())]);
    }
    return rest.length > 0 ? { kind: 'compare', first, rest } : first;
  }

  private term(): Expr {
    return this.chain(['*', '/', '//', '%'], () => this.factor());
  }

  private chain(ops: string[], next: () => Expr): Expr {
    const first = next();
    const rest: [BinOp, Expr][] = [];
    while (this.at('op') && ops.includes(this.tok.text)) {
      const op = this.advance().text as BinOp;
      rest.push([op, next()]);
    }
    return rest.length > 0 ? { kind: 'binary', first, rest } : first;
  }

  private factor(): Expr {
    if (!this.isOp('-') && !this.isOp('+')) return this.power();
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
    if (!this.isOp('**')) return base;
    this.enter(this.advance());
    const exponent = this.factor(); // right-associative, and binds tighter than a unary minus on its left
    this.depth--;
    return { kind: 'binary', first: base, rest: [['**', exponent]] };
  }

  /** An atom followed by `.name`, `[index]`, `[a:b]` and `(args)`. */
  private postfix(): Expr {
    let e = this.atom();
    const saved = this.depth;
    for (;;) {
      const t = this.tok;
      if (this.isOp('.')) {
        this.enter(t);
        this.advance();
        const name = this.tok;
        if (name.kind !== 'name') throw this.unexpected('a field name');
        this.advance();
        e = { kind: 'attr', obj: e, name: name.text };
      } else if (this.isOp('(')) {
        this.enter(t);
        this.advance();
        e = this.call(e);
      } else if (this.isOp('[')) {
        this.enter(t);
        this.advance();
        e = this.subscript(e);
      } else break;
    }
    this.depth = saved;
    return e;
  }

  private call(callee: Expr): Expr {
    const args: Expr[] = [];
    const kwargs: [string, Expr][] = [];
    while (!this.isOp(')')) {
      if (this.at('name') && this.isOp('=', this.peek())) {
        const name = this.advance();
        this.advance();
        if (kwargs.some(([k]) => k === name.text)) {
          throw this.error(`keyword argument "${name.text}" repeated`, name);
        }
        kwargs.push([name.text, this.test()]);
      } else {
        if (kwargs.length > 0)
          throw this.error('positional argument follows keyword argument', this.tok);
        const arg = this.test();
        // A lone generator argument: any(x > 0 for x in xs).
        args.push(this.isKw('for') && args.length === 0 ? this.listComp(arg) : arg);
      }
      if (!this.isOp(',')) break;
      this.advance();
    }
    this.expectOp(')');
    return { kind: 'call', callee, args, kwargs };
  }

  private subscript(obj: Expr): Expr {
    let lo: Expr | null = null;
    if (!this.isOp(':')) {
      lo = this.test();
      if (this.isOp(']')) {
        this.advance();
        return { kind: 'index', obj, index: lo };
      }
      if (!this.isOp(':')) throw this.unexpected('"]"');
    }
    this.advance();
    const hi = this.isOp(':') || this.isOp(']') ? null : this.test();
    let step: Expr | null = null;
    if (this.isOp(':')) {
      this.advance();
      if (!this.isOp(']')) step = this.test();
    }
    this.expectOp(']');
    return { kind: 'slice', obj, lo, hi, step };
  }

  private atom(): Expr {
    const t = this.tok;
    if (t.kind === 'number') {
      this.advance();
      return { kind: 'lit', value: t.value };
    }
    if (t.kind === 'string') {
      let value = '';
      while (this.at('string')) value += this.advance().value as string; // "a" "b" == "ab"
      return { kind: 'lit', value };
    }
    if (t.kind === 'name' && !UNSUPPORTED.has(t.text)) {
      const constant = CONSTANTS.get(t.text);
      if (constant !== undefined) {
        this.advance();
        return { kind: 'lit', value: constant };
      }
      if (!KEYWORDS.has(t.text)) {
        this.advance();
        return { kind: 'name', name: t.text };
      }
    }
    if (!this.isOp('(') && !this.isOp('[') && !this.isOp('{')) throw this.unexpected();
    this.enter(t);
    this.advance();
    const e =
      t.text === '(' ? this.parens() : t.text === '[' ? this.listDisplay() : this.dictDisplay();
    this.depth--;
    return e;
  }

  /** `()` is an empty tuple, `(x)` is x, `(x,)` and `(x, y)` are tuples (lists here). */
  private parens(): Expr {
    if (this.isOp(')')) {
      this.advance();
      return { kind: 'list', items: [] };
    }
    const first = this.test();
    if (this.isKw('for')) {
      const comp = this.listComp(first);
      this.expectOp(')');
      return comp;
    }
    if (!this.isOp(',')) {
      this.expectOp(')');
      return first;
    }
    return { kind: 'list', items: this.rest(first, ')') };
  }

  private listDisplay(): Expr {
    if (this.isOp(']')) {
      this.advance();
      return { kind: 'list', items: [] };
    }
    const first = this.test();
    if (this.isKw('for')) {
      const comp = this.listComp(first);
      this.expectOp(']');
      return comp;
    }
    return { kind: 'list', items: this.rest(first, ']') };
  }

  /** The remaining comma-separated items of a display, through the closing bracket. */
  private rest(first: Expr, close: string): Expr[] {
    const items = [first];
    while (this.isOp(',')) {
      this.advance();
      if (this.isOp(close)) break;
      items.push(this.test());
    }
    this.expectOp(close);
    return items;
  }

  private dictDisplay(): Expr {
    if (this.isOp('}')) {
      this.advance();
      return { kind: 'dict', entries: [] };
    }
    const entry = (): [Expr, Expr] => {
      const key = this.test();
      if (this.isOp(',') || this.isOp('}'))
        throw this.error('set literals are not supported', this.tok);
      this.expectOp(':');
      return [key, this.test()];
    };
    const [key, value] = entry();
    if (this.isKw('for')) {
      const clauses = this.clauses();
      this.expectOp('}');
      return { kind: 'dictcomp', key, value, clauses };
    }
    const entries: [Expr, Expr][] = [[key, value]];
    while (this.isOp(',')) {
      this.advance();
      if (this.isOp('}')) break;
      entries.push(entry());
    }
    this.expectOp('}');
    return { kind: 'dict', entries };
  }

  private listComp(elt: Expr): Expr {
    return { kind: 'listcomp', elt, clauses: this.clauses() };
  }

  /** `for x in xs` followed by more `for` and `if` clauses. */
  private clauses(): Clause[] {
    const out: Clause[] = [];
    while (this.isKw('for') || (out.length > 0 && this.isKw('if'))) {
      const t = this.advance();
      this.enter(t);
      if (t.text === 'if') {
        out.push({ kind: 'if', cond: this.or() });
        continue;
      }
      const start = this.tok;
      const target = this.target(this.targetList(), start);
      this.expectKw('in');
      out.push({ kind: 'for', target, iter: this.or() });
    }
    this.depth -= out.length;
    return out;
  }
}
