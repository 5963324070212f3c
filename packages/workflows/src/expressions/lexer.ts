// Tokenizer. It is lazy (the parser pulls one token at a time) so the first error in source order
// is the one reported. In program mode it turns indentation into INDENT/DEDENT tokens the way
// Python does; in expression mode line breaks are plain whitespace, because `if:` conditions
// are often folded over several YAML lines.
import { ExpressionSyntaxError } from './errors.js';

type Layout = 'newline' | 'indent' | 'dedent' | 'eof';
export type TokenKind = 'name' | 'number' | 'string' | 'op' | Layout;

export interface Token {
  readonly kind: TokenKind;
  readonly text: string; // source text
  readonly value: string | number | null; // decoded number or string literal
  readonly line: number;
  readonly column: number;
}

// Longest first, so `//=` wins over `//` and `/`.
const OPERATORS = '//= == != <= >= // ** += -= *= /= %= + - * / % < > = ( ) [ ] { } , : . ;'.split(
  ' ',
);
/** Operators from other languages, with the word Starlark uses instead. */
const HINTS = Object.entries({ '&&': 'and', '||': 'or', '!': 'not' });
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?/y;
const ESCAPES = new Map(
  Object.entries({ n: '\n', t: '\t', r: '\r', 0: '\0', a: '\x07', b: '\b', f: '\f', v: '\v' }),
);

/** Throws a syntax error at a position; typed `never` so it can end an expression. */
function bad(what: string, line: number, column: number): never {
  throw new ExpressionSyntaxError(what, line, column);
}

function make(
  kind: TokenKind,
  line: number,
  column: number,
  text = '',
  value: Token['value'] = null,
): Token {
  return { kind, text, value, line, column };
}

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

  private get column(): number {
    return this.pos - this.lineStart + 1;
  }

  private scan(): Token {
    if (this.finished) return this.finished;
    for (;;) {
      if (this.layout && this.atLineStart && this.open.length === 0) {
        const start = this.pos;
        while (' \t\f'.includes(this.src[this.pos] ?? '-')) this.pos++;
        // Blank and comment-only lines say nothing about indentation.
        if (!'\n\r#'.includes(this.src[this.pos] ?? '\n')) {
          this.atLineStart = false;
          const tok = this.indentation(this.src.slice(start, this.pos));
          if (tok) return tok;
        }
      }
      this.skipSpace();
      const c = this.src[this.pos];
      if (c === undefined) return this.end();
      if (c !== '\n' && c !== '\r') return this.token();
      const tok = make('newline', this.line, this.column);
      this.newline();
      if (this.layout && this.open.length === 0) {
        this.atLineStart = true;
        if (this.last !== 'newline') return tok;
      }
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
    const stack = this.indents;
    const top = (): string => stack[stack.length - 1]!;
    if (cur === top()) return undefined;
    if (cur.startsWith(top())) {
      stack.push(cur);
      return make('indent', this.line, column, cur);
    }
    while (stack.length > 1 && top() !== cur && top().startsWith(cur)) {
      stack.pop();
      this.queue.push(make('dedent', this.line, column));
    }
    if (top() !== cur) bad('indentation does not match any outer block', this.line, column);
    return this.queue.shift();
  }

  private end(): Token {
    const open = this.open[this.open.length - 1];
    if (open) bad(`"${open.text}" was never closed`, open.line, open.column);
    this.finished = make('eof', this.line, this.column);
    if (!this.layout) return this.finished;
    if (this.last !== 'newline') this.queue.push(make('newline', this.line, this.column));
    for (let i = this.indents?.length ?? 0; i > 1; i--) {
      this.queue.push(make('dedent', this.line, this.column));
    }
    this.queue.push(this.finished);
    return this.queue.shift()!;
  }

  private token(): Token {
    const { line, column } = this;
    const start = this.pos;
    const c = this.src[start]!;
    NAME.lastIndex = start;
    const name = NAME.exec(this.src)?.[0];
    if (name) {
      const quoted =
        /^[rbuf]{1,2}$/i.test(name) && /["']/.test(this.src[start + name.length] ?? '');
      if (quoted) bad(`string prefix "${name}" is not supported`, line, column);
      this.pos += name.length;
      return make('name', line, column, name);
    }
    if (c === '"' || c === "'") return this.string(line, column);
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(this.src[start + 1] ?? ''))) {
      return this.number(start, line, column);
    }
    for (const [word, use] of HINTS) {
      if (this.src.startsWith(word, start) && !this.src.startsWith('!=', start)) {
        bad(`unexpected "${word}" (use "${use}")`, line, column);
      }
    }
    const op = OPERATORS.find((o) => this.src.startsWith(o, start));
    if (!op) bad(`unexpected character "${c}"`, line, column);
    this.pos += op.length;
    const tok = make('op', line, column, op);
    if ('([{'.includes(op)) this.open.push(tok);
    else if (')]}'.includes(op)) this.open.pop(); // a mismatch is the parser's to report
    return tok;
  }

  private number(start: number, line: number, column: number): Token {
    NUMBER.lastIndex = start;
    const text = NUMBER.exec(this.src)![0];
    this.pos += text.length;
    const next = this.src[this.pos] ?? '';
    if (/[A-Za-z0-9_.]/.test(next)) bad(`invalid number "${text}${next}"`, line, column);
    const digits = text.replace(/_/g, '');
    const isInt = !/[.eE]/.test(digits);
    if (isInt && /^0\d/.test(digits)) bad('leading zeros are not allowed', line, column);
    const value = Number(digits);
    if (!Number.isFinite(value)) bad('number is too large', line, column);
    if (isInt && !Number.isSafeInteger(value)) bad(`integer ${text} is too large`, line, column);
    return make('number', line, column, text, value);
  }

  private string(line: number, column: number): Token {
    const start = this.pos;
    const q = this.src[this.pos]!;
    const end = this.src.startsWith(q + q + q, this.pos) ? q + q + q : q;
    this.pos += end.length;
    let out = '';
    while (!this.src.startsWith(end, this.pos)) {
      const c = this.src[this.pos];
      if (c === undefined || (end === q && (c === '\n' || c === '\r'))) {
        bad('unterminated string', line, column);
      }
      if (c === '\n' || c === '\r') {
        this.newline();
        out += '\n';
      } else if (c === '\\') out += this.escape();
      else {
        out += c;
        this.pos++;
      }
    }
    this.pos += end.length;
    return make('string', line, column, this.src.slice(start, this.pos), out);
  }

  private escape(): string {
    const { line, column } = this;
    const next = this.src[this.pos + 1] ?? '';
    const simple = next !== '' && '\\\'"'.includes(next) ? next : ESCAPES.get(next);
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    if (next === '\n' || next === '\r') {
      this.pos++;
      this.newline();
      return '';
    }
    if (next !== 'u') {
      this.pos++; // unknown escapes keep their backslash, as in Python
      return '\\';
    }
    const hex = this.src.slice(this.pos + 2, this.pos + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) bad('invalid \\u escape', line, column);
    this.pos += 6;
    return String.fromCharCode(parseInt(hex, 16));
  }
}
