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
  | { kind: 'pass' };

const words = (s: string): Set<string> => new Set(s.split(' '));
const KEYWORDS = words('and or not in if elif else for pass True False None');
/** Python keywords outside the subset: refused by name rather than as a puzzling parse error. */
const UNSUPPORTED = words(
  'def lambda while break continue return class import from try except finally raise with yield del global nonlocal assert async await is as',
);
const CONSTANTS = new Map(Object.entries({ True: true, False: false, None: null }));
const COMPARISONS = words('== != < <= > >=');
const EXPR_START = words('( [ { - +');
const TOKEN_NOUNS = new Map(
  Object.entries({
    eof: 'end of input',
    newline: 'end of line',
    indent: 'indentation',
    dedent: 'end of block',
  }),
);
const NOUNS = new Map(
  Object.entries({ lit: 'a literal', call: 'a function call', slice: 'a slice' }),
);

export function parseExpressionSource(source: string): Expr {
  return new Parser(new Lexer(source, false)).expressionMode();
}

export function parseProgramSource(source: string): Stmt[] {
  return new Parser(new Lexer(source, true)).programMode();
}

class Parser {
  private tok: Token;
  private depth = 0;

  constructor(private readonly lexer: Lexer) {
    this.tok = lexer.next();
  }

  expressionMode(): Expr {
    if (this.at('eof')) throw syntaxError('the expression is empty', this.tok);
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
    this.tok = this.lexer.next();
    return t;
  }

  /** A method, not `this.tok.kind ===`, which TypeScript would keep narrowed across advance(). */
  private at(kind: TokenKind): boolean {
    return this.tok.kind === kind;
  }

  /** Is the current token this operator or keyword? */
  private is(text: string): boolean {
    return (this.tok.kind === 'op' || this.tok.kind === 'name') && this.tok.text === text;
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

  /** Parses one nesting level (counted from the token `at`). */
  private nested<T>(at: Token, parse: () => T): T {
    this.enter(at);
    const result = parse();
    this.depth--;
    return result;
  }

  private enter(at: Token): void {
    if (++this.depth > MAX_DEPTH) {
      throw syntaxError(`nested too deeply (the limit is ${MAX_DEPTH} levels)`, at);
    }
  }

  private unexpected(expected?: string): ExpressionSyntaxError {
    const t = this.tok;
    if (t.kind === 'name' && UNSUPPORTED.has(t.text)) {
      return syntaxError(
        `"${t.text}" is not supported${t.text === 'is' ? ' (use == or !=)' : ''}`,
        t,
      );
    }
    const found =
      TOKEN_NOUNS.get(t.kind) ??
      (t.kind === 'number' ? `number ${t.text}` : t.kind === 'string' ? 'a string' : `"${t.text}"`);
    return syntaxError(
      expected ? `expected ${expected} but found ${found}` : `unexpected ${found}`,
      t,
    );
  }

  // ---- statements ----

  private statement(): Stmt[] {
    if (this.is('if')) return [this.ifStatement()];
    if (this.is('for')) return [this.forStatement()];
    const out = [this.simpleStatement()]; // then more on the line, after `;`
    while (this.accept(';') && !this.at('newline') && !this.at('eof'))
      out.push(this.simpleStatement());
    if (!this.at('eof') && !this.at('newline')) throw this.unexpected();
    if (this.at('newline')) this.advance();
    return out;
  }

  private simpleStatement(): Stmt {
    const start = this.tok;
    if (this.accept('pass')) return { kind: 'pass' };
    const e = this.testList();
    if (this.accept('='))
      return { kind: 'assign', target: this.target(e, start), value: this.testList() };
    const op = this.tok.text;
    if (!this.at('op') || !/^(\+|-|\*|\/|\/\/|%)=$/.test(op)) return { kind: 'expr', expr: e };
    const target = this.target(e, start);
    if (target.kind === 'tuple') throw syntaxError(`cannot use ${op} on a tuple`, start);
    this.advance();
    return { kind: 'augassign', target, op: op.slice(0, -1) as BinOp, value: this.testList() };
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
    return { kind: 'for', target, iter, body: this.block() };
  }

  /** `:` then either statements on the same line or an indented block. */
  private block(): Stmt[] {
    return this.nested(this.tok, () => {
      this.expect(':');
      if (!this.at('newline')) return this.statement();
      this.advance();
      if (!this.at('indent')) throw syntaxError('expected an indented block', this.tok);
      this.advance();
      const body: Stmt[] = [];
      while (!this.at('dedent') && !this.at('eof')) body.push(...this.statement());
      if (this.at('dedent')) this.advance();
      return body;
    });
  }

  /** Checks that an expression parsed on the left of `=` (or after `for`) can be assigned to. */
  private target(e: Expr, at: Token): Target {
    if (e.kind === 'name' || e.kind === 'index') return e;
    if (e.kind === 'list') return { kind: 'tuple', items: e.items.map((i) => this.target(i, at)) };
    if (e.kind === 'attr') {
      throw syntaxError(`cannot assign to field "${e.name}" (use x["${e.name}"] = ...)`, at);
    }
    throw syntaxError(`cannot assign to ${NOUNS.get(e.kind) ?? 'an expression'}`, at);
  }

  // ---- expressions, lowest precedence first ----

  /** Expressions separated by commas, as a tuple (list): `a, b = b, a`. */
  private testList(): Expr {
    return this.commaList(
      () => this.test(),
      () => this.startsExpression(),
    );
  }

  /** Loop targets stop before `in`, so they are parsed at postfix level. */
  private targetList(): Expr {
    return this.commaList(
      () => this.postfix(),
      () => !this.is('in'),
    );
  }

  private commaList(item: () => Expr, more: () => boolean): Expr {
    const first = item();
    if (!this.is(',')) return first;
    const items = [first];
    while (this.accept(',') && more()) items.push(item());
    return { kind: 'list', items };
  }

  private startsExpression(): boolean {
    const { kind, text } = this.tok;
    if (kind === 'name') return !KEYWORDS.has(text) || text === 'not' || CONSTANTS.has(text);
    return kind === 'number' || kind === 'string' || (kind === 'op' && EXPR_START.has(text));
  }

  private test(): Expr {
    const then = this.or();
    if (!this.is('if')) return then;
    return this.nested(this.advance(), () => {
      const test = this.or();
      this.expect('else');
      return { kind: 'cond', test, then, else: this.test() };
    });
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
    const operand = this.nested(this.advance(), () => this.not());
    return { kind: 'unary', op: 'not', operand };
  }

  private comparison(): Expr {
    const sum = (): Expr => this.chain(['+', '-'], () => this.term());
    const first = sum();
    const rest: [CmpOp, Expr][] = [];
    for (;;) {
      if (this.is('is')) throw this.unexpected();
      const { kind, text } = this.tok;
      if (kind === 'op' ? !COMPARISONS.has(text) : !this.is('in') && !this.is('not')) break;
      this.advance();
      if (text === 'not') this.expect('in'); // after an operand, `not` can only start `not in`
      rest.push([text === 'not' ? 'not in' : (text as CmpOp), sum()]);
    }
    return rest.length > 0 ? { kind: 'compare', first, rest } : first;
  }

  private term(): Expr {
    return this.chain(['*', '/', '//', '%'], () => this.factor());
  }

  private chain(ops: string[], next: () => Expr): Expr {
    const first = next();
    const rest: [BinOp, Expr][] = [];
    while (this.at('op') && ops.includes(this.tok.text))
      rest.push([this.advance().text as BinOp, next()]);
    return rest.length > 0 ? { kind: 'binary', first, rest } : first;
  }

  private factor(): Expr {
    if (!this.is('-') && !this.is('+')) return this.power();
    const t = this.advance();
    const operand = this.nested(t, () => this.factor());
    if (operand.kind === 'lit' && typeof operand.value === 'number') {
      return { kind: 'lit', value: t.text === '-' ? -operand.value : operand.value };
    }
    return { kind: 'unary', op: t.text as '-' | '+', operand };
  }

  private power(): Expr {
    const base = this.postfix();
    if (!this.is('**')) return base;
    // Right-associative, and binds tighter than a unary minus on its left: -2 ** 2 == -4.
    const exponent = this.nested(this.advance(), () => this.factor());
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
      const start = this.tok;
      const arg = this.test();
      if (arg.kind === 'name' && this.accept('=')) {
        kwargs.push([arg.name, this.test()]);
      } else if (kwargs.length > 0) {
        throw syntaxError('positional argument follows keyword argument', start);
      } else {
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
    const constant = t.kind === 'name' ? CONSTANTS.get(t.text) : undefined;
    if (constant !== undefined) this.advance();
    if (constant !== undefined) return { kind: 'lit', value: constant };
    if (t.kind === 'name' && !KEYWORDS.has(t.text) && !UNSUPPORTED.has(t.text)) {
      return { kind: 'name', name: this.advance().text };
    }
    if (!this.is('(') && !this.is('[') && !this.is('{')) throw this.unexpected();
    this.advance();
    return this.nested(t, () =>
      t.text === '{' ? this.dict() : this.sequence(t.text === '(' ? ')' : ']'),
    );
  }

  /** `[...]` or `(...)`: empty, a comprehension, or items. `(x)` is x; other tuples are lists. */
  private sequence(close: string): Expr {
    if (this.accept(close)) return { kind: 'list', items: [] };
    const first = this.test();
    if (this.is('for')) return this.closed(this.listComp(first), close);
    if (close === ')' && this.accept(')')) return first;
    const items = [first];
    while (this.accept(',') && !this.is(close)) items.push(this.test());
    return this.closed({ kind: 'list', items }, close);
  }

  private closed(e: Expr, close: string): Expr {
    this.expect(close);
    return e;
  }

  private dict(): Expr {
    const entries: [Expr, Expr][] = [];
    while (!this.is('}')) {
      const key = this.test();
      if (this.is(',') || this.is('}'))
        throw syntaxError('set literals are not supported', this.tok);
      this.expect(':');
      const value = this.test();
      if (entries.length === 0 && this.is('for')) {
        return this.closed({ kind: 'dictcomp', key, value, clauses: this.clauses() }, '}');
      }
      entries.push([key, value]);
      if (!this.accept(',')) break;
    }
    return this.closed({ kind: 'dict', entries }, '}');
  }

  private listComp(elt: Expr): Expr {
    return { kind: 'listcomp', elt, clauses: this.clauses() };
  }

  /** `for x in xs` followed by more `for` and `if` clauses; each clause is a level. */
  private clauses(): Clause[] {
    const out: Clause[] = [];
    while (this.is('for') || (out.length > 0 && this.is('if'))) {
      this.enter(this.tok);
      if (this.accept('if')) {
        out.push({ kind: 'if', cond: this.or() });
        continue;
      }
      this.advance();
      const start = this.tok;
      const target = this.target(this.targetList(), start);
      this.expect('in');
      out.push({ kind: 'for', target, iter: this.or() });
    }
    this.depth -= out.length;
    return out;
  }
}

function syntaxError(what: string, at: Token): ExpressionSyntaxError {
  return new ExpressionSyntaxError(what, at.line, at.column);
}
