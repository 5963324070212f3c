// Tokenizer. It is lazy (the parser pulls one token at a time) so the first error in source order
// is the one reported. In program mode it turns indentation into INDENT/DEDENT tokens the way
// Python does; in expression mode line breaks are plain whitespace, because `if:` conditions
// are often folded over several YAML lines.
import { ExpressionSyntaxError } from './errors.js';

export type TokenKind =
  | 'name'
  | 'number'
  | 'string'
  | 'op'
  | 'newline'
  | 'indent'
  | 'dedent'
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Source text (for strings: the decoded value is in `value`). */
  readonly text: string;
  readonly value: string | number | null;
  readonly line: number;
  readonly column: number;
}

// Longest first, so `//=` wins over `//` and `/`.
const OPERATORS = [
  '//=',
  '==',
  '!=',
  '<=',
  '>=',
  '//',
  '**',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  ...'+-*/%<>=()[]{},:.;',
];
/** Operators from other languages, with the word Starlark uses instead. */
const HINTS = new Map([
  ['&&', 'and'],
  ['||', 'or'],
  ['!', 'not'],
]);
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER =
  /0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?/y;
const ESCAPES = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['0', '\0'],
  ['a', '\x07'],
  ['b', '\b'],
  ['f', '\f'],
  ['v', '\v'],
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
]);
const RADIX = new Map([
  ['x', 16],
  ['o', 8],
  ['b', 2],
]);
const HEX_ESCAPES = new Map([
  ['x', 2],
  ['u', 4],
  ['U', 8],
]);

export class Lexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  /** Open brackets: line breaks inside them are whitespace, and EOF reports the unclosed one. */
  private readonly open: Token[] = [];
  /** Indentation strings of the enclosing blocks; the first code line sets the base. */
  private indents: string[] | null = null;
  private readonly queue: Token[] = [];
  private atLineStart = true;
  private last: TokenKind = 'newline';
  private finished: Token | null = null;

  constructor(
    private readonly src: string,
    private readonly layout: boolean,
  ) {}

  next(): Token {
    const tok = this.queue.shift() ?? this.scan();
    this.last = tok.kind;
    return tok;
  }

  private scan(): Token {
    if (this.finished) return this.finished;
    for (;;) {
      if (this.layout && this.atLineStart && this.open.length === 0) {
        const start = this.pos;
        while (' \t\f'.includes(this.src[this.pos] ?? '-')) this.pos++;
        const c = this.src[this.pos];
        // Blank and comment-only lines say nothing about indentation.
        if (c !== undefined && c !== '\n' && c !== '\r' && c !== '#') {
          this.atLineStart = false;
          const tok = this.indentation(this.src.slice(start, this.pos));
          if (tok) return tok;
        }
      }
      this.skipSpace();
      const c = this.src[this.pos];
      if (c === undefined) return this.end();
      if (c === '\n' || c === '\r') {
        const tok = this.make('newline', '', null, this.line, this.pos - this.lineStart + 1);
        this.newline();
        if (this.layout && this.open.length === 0) {
          this.atLineStart = true;
          if (this.last !== 'newline') return tok;
        }
        continue;
      }
      return this.token();
    }
  }

  private skipSpace(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c === ' ' || c === '\t' || c === '\f') this.pos++;
      else if (c === '#') while (!'\n\r'.includes(this.src[this.pos] ?? '\n')) this.pos++;
      else if (c === '\\' && '\n\r'.includes(this.src[this.pos + 1] ?? '-')) {
        this.pos++;
        this.newline();
      } else return;
    }
  }

  /** Consumes one line break (\n, \r\n or \r). */
  private newline(): void {
    this.pos += this.src.startsWith('\r\n', this.pos) ? 2 : 1;
    this.line++;
    this.lineStart = this.pos;
  }

  private indentation(cur: string): Token | undefined {
    const column = cur.length + 1;
    if (!this.indents) {
      this.indents = [cur]; // common indentation of a YAML block: the base level
      return undefined;
    }
    const top = (): string => this.indents![this.indents!.length - 1]!;
    if (cur === top()) return undefined;
    if (cur.startsWith(top())) {
      this.indents.push(cur);
      return this.make('indent', cur, null, this.line, column);
    }
    while (this.indents.length > 1 && top() !== cur && top().startsWith(cur)) {
      this.indents.pop();
      this.queue.push(this.make('dedent', '', null, this.line, column));
    }
    if (top() !== cur) {
      throw new ExpressionSyntaxError(
        'indentation does not match any outer block',
        this.line,
        column,
      );
    }
    return this.queue.shift();
  }

  private end(): Token {
    const open = this.open[this.open.length - 1];
    if (open)
      throw new ExpressionSyntaxError(`"${open.text}" was never closed`, open.line, open.column);
    const column = this.pos - this.lineStart + 1;
    const eof = this.make('eof', '', null, this.line, column);
    this.finished = eof;
    if (!this.layout) return eof;
    if (this.last !== 'newline') this.queue.push(this.make('newline', '', null, this.line, column));
    for (let i = this.indents?.length ?? 0; i > 1; i--) {
      this.queue.push(this.make('dedent', '', null, this.line, column));
    }
    this.queue.push(eof);
    return this.queue.shift()!;
  }

  private token(): Token {
    const start = this.pos;
    const line = this.line;
    const column = start - this.lineStart + 1;
    const c = this.src[start]!;
    NAME.lastIndex = start;
    const name = NAME.exec(this.src)?.[0];
    if (name) {
      const quote = this.src[start + name.length];
      if (quote === '"' || quote === "'") {
        if (name !== 'r' && name !== 'R') {
          throw new ExpressionSyntaxError(`string prefix "${name}" is not supported`, line, column);
        }
        this.pos++;
        return this.string(start, line, column, true);
      }
      this.pos += name.length;
      return this.make('name', name, null, line, column);
    }
    if (c === '"' || c === "'") return this.string(start, line, column, false);
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(this.src[start + 1] ?? ''))) {
      return this.number(start, line, column);
    }
    for (const [bad, word] of HINTS) {
      if (this.src.startsWith(bad, start) && !this.src.startsWith('!=', start)) {
        throw new ExpressionSyntaxError(`unexpected "${bad}" (use "${word}")`, line, column);
      }
    }
    const op = OPERATORS.find((o) => this.src.startsWith(o, start));
    if (!op) throw new ExpressionSyntaxError(`unexpected character "${c}"`, line, column);
    this.pos += op.length;
    const tok = this.make('op', op, null, line, column);
    if ('([{'.includes(op)) this.open.push(tok);
    else if (')]}'.includes(op)) this.open.pop(); // a mismatch is the parser's to report
    return tok;
  }

  private number(start: number, line: number, column: number): Token {
    NUMBER.lastIndex = start;
    const text = NUMBER.exec(this.src)![0];
    this.pos += text.length;
    const bad = (what: string): never => {
      throw new ExpressionSyntaxError(what, line, column);
    };
    if (/[A-Za-z0-9_.]/.test(this.src[this.pos] ?? ''))
      bad(`invalid number "${text}${this.src[this.pos]}"`);
    const digits = text.replace(/_/g, '');
    const radix = RADIX.get(/^0[a-z]/i.test(digits) ? digits[1]!.toLowerCase() : '');
    const isInt = radix !== undefined || !/[.eE]/.test(digits);
    if (radix === undefined && isInt && /^0\d/.test(digits)) bad('leading zeros are not allowed');
    const value = radix ? parseInt(digits.slice(2), radix) : Number(digits);
    if (!Number.isFinite(value)) bad('number is too large');
    if (isInt && !Number.isSafeInteger(value)) bad(`integer ${text} is too large (limit 2^53)`);
    return this.make('number', text, value, line, column);
  }

  private string(start: number, line: number, column: number, raw: boolean): Token {
    const q = this.src[this.pos]!;
    const triple = this.src.startsWith(q + q + q, this.pos);
    this.pos += triple ? 3 : 1;
    let out = '';
    for (;;) {
      const c = this.src[this.pos];
      if (c === undefined) throw new ExpressionSyntaxError('unterminated string', line, column);
      if (c === q && (!triple || this.src.startsWith(q + q + q, this.pos))) {
        this.pos += triple ? 3 : 1;
        break;
      }
      if (c === '\n' || c === '\r') {
        if (!triple) throw new ExpressionSyntaxError('unterminated string', line, column);
        this.newline();
        out += '\n';
      } else if (c === '\\') {
        out += raw ? this.rawEscape() : this.escape();
      } else {
        out += c;
        this.pos++;
      }
    }
    return this.make('string', this.src.slice(start, this.pos), out, line, column);
  }

  /** In raw strings a backslash stays, but it still keeps the next quote from ending the string. */
  private rawEscape(): string {
    const next = this.src[this.pos + 1] ?? '';
    const keep = next === '\\' || next === '"' || next === "'";
    this.pos += keep ? 2 : 1;
    return keep ? '\\' + next : '\\';
  }

  private escape(): string {
    const line = this.line;
    const column = this.pos - this.lineStart + 1;
    const next = this.src[this.pos + 1] ?? '';
    const simple = ESCAPES.get(next);
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    if (next === '\n' || next === '\r') {
      this.pos++;
      this.newline();
      return '';
    }
    const width = HEX_ESCAPES.get(next);
    if (width === undefined) {
      this.pos++; // unknown escapes keep their backslash, as in Python
      return '\\';
    }
    const hex = this.src.slice(this.pos + 2, this.pos + 2 + width);
    const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === width ? parseInt(hex, 16) : -1;
    if (code < 0 || code > 0x10ffff) {
      throw new ExpressionSyntaxError(`invalid \\${next} escape`, line, column);
    }
    this.pos += 2 + width;
    return String.fromCodePoint(code);
  }

  private make(
    kind: TokenKind,
    text: string,
    value: string | number | null,
    line: number,
    column: number,
  ): Token {
    return { kind, text, value, line, column };
  }
}
