import { describe, expect, it } from '@jest/globals';
import {
  evaluate,
  ExpressionError,
  ExpressionSyntaxError,
  parseExpression,
  parseProgram,
  type Limits,
  type Value,
} from '../src/expressions/index.js';

function run(source: string, scope: Record<string, Value> = {}, limits?: Limits): Value {
  return evaluate(parseProgram(source), scope, limits);
}

/** Runs a thunk that must fail; returns the error. */
function failure(thunk: () => unknown): Error {
  try {
    thunk();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('expressions: hostile programs fail fast', () => {
  it.each([
    ['x = [1]\nfor i in range(10**9):\n    x = x + x', 'range() would have 1000000000 elements'],
    ['x = [1]\nfor i in range(100):\n    x = x + x', 'list would have 1048576 elements'],
    ['"a" * 10**12', 'string would have 1000000000000 characters'],
    ['[0] * 10**9', 'list would have 1000000000 elements'],
    ['s = "ab"\nfor i in range(64):\n    s += s', 'string would have'],
    ['n = 0\nfor i in range(1000000):\n    n += 1', 'expression took more than 100000 steps'],
    ['[[j for j in range(1000)] for i in range(1000)]', 'expression took more than 100000 steps'],
    ['x = []\nfor i in range(5000):\n    x = [x]\nx', 'nested too deeply'],
    ['x = []\nfor i in range(5000):\n    x = [x]\nstr(x)', 'nested too deeply'],
    ['x = []\nx.append(x)\nx', 'nested too deeply'],
    ['d = {}\nd["self"] = d\nstr(d)', 'nested too deeply'],
    ['a = [1]\nfor i in range(60):\n    a = [a, a]\na', 'expression took more than'],
    [
      'a = [1]\nfor i in range(60):\n    a = [a, a]\nb = [1]\nfor i in range(60):\n    b = [b, b]\na == b',
      'expression took more than',
    ],
    [
      'big = "x" * 999999\nall = [big for i in range(200)]\nstr(all)',
      'printed value would be longer than the limit',
    ],
    ['"-".join(["x" * 999999, "y"])', 'string would have 1000001 characters'],
    ['("a" * 1000000).replace("a", "bb")', 'string would have 2000000 characters'],
    [
      'out = {}\nfor i in range(10**6):\n    out[str(i)] = "v" * 1000',
      'expression took more than 100000 steps',
    ],
  ])('%s', (source, message) => {
    // The step, size and depth budgets stop these, whatever the machine's speed: the clock
    // (1 s by default) is put out of the way so a loaded machine cannot stop them first.
    const err = failure(() => run(source, {}, { maxMillis: 600_000 }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toContain(message);
  });

  it('stops on the clock when the step budget is huge', () => {
    const source = 'for i in range(1000000):\n    for j in range(1000000):\n        pass';
    const err = failure(() => run(source, {}, { maxSteps: 1e12, maxMillis: 50 }));
    // Only the clock can have stopped a trillion-step budget.
    expect(err.message).toBe('expression took more than 50 ms');
  });

  it('honours custom limits', () => {
    expect(() => run('range(11)', {}, { maxLength: 10 })).toThrow(
      'range() would have 11 elements, more than the limit of 10',
    );
    expect(run('len(range(10))', {}, { maxLength: 10 })).toBe(10);
    expect(() => run('1 + 1 + 1', {}, { maxSteps: 3 })).toThrow(
      'expression took more than 3 steps',
    );
  });
});

describe('expressions: hostile sources fail fast at parse time', () => {
  const syntaxError = (source: string, parse = parseExpression): ExpressionSyntaxError => {
    // The nesting and length limits refuse these before any work grows with them.
    const err = failure(() => parse(source));
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    return err as ExpressionSyntaxError;
  };

  it('accepts 100 levels of nesting and refuses 101', () => {
    expect(evaluate(parseExpression('['.repeat(100) + ']'.repeat(100)), {})).toBeTruthy();
    const err = syntaxError('['.repeat(101) + ']'.repeat(101));
    expect(err.message).toBe('nested too deeply (the limit is 100 levels) at line 1, column 101');
  });

  it.each([
    ['brackets', '('.repeat(9000) + '1' + ')'.repeat(9000)],
    ['dicts', '{"a": '.repeat(2000) + '1' + '}'.repeat(2000)],
    ['unary minus', '-'.repeat(19_000) + '1'],
    ['not', 'not '.repeat(4000) + 'x'],
    ['power', '2 ** '.repeat(3000) + '2'],
    ['conditionals', '1 if x else '.repeat(1500) + '2'],
    ['attribute chains', 'x' + '.a'.repeat(9000)],
    ['calls', 'f' + '()'.repeat(9000)],
    ['index chains', 'x' + '[0]'.repeat(6000)],
    ['comprehension clauses', '[x ' + 'for x in y '.repeat(1500) + ']'],
  ])('deep %s', (_name, source) => {
    expect(syntaxError(source).message).toContain('nested too deeply');
  });

  it('deep blocks', () => {
    const source = Array.from({ length: 150 }, (_, i) => ' '.repeat(i) + 'if True:').join('\n');
    expect(syntaxError(source + '\n' + ' '.repeat(150) + 'pass', parseProgram).message).toContain(
      'nested too deeply',
    );
  });

  it('100k brackets are refused by length before anything else', () => {
    expect(syntaxError('['.repeat(100_000)).message).toContain('more than the limit of 20000');
  });

  it('long flat operator chains stay off the stack', () => {
    expect(evaluate(parseExpression(Array(9000).fill('1').join('+')), {})).toBe(9000);
    expect(evaluate(parseExpression(Array(3000).fill('x').join(' and ')), { x: 1 })).toBe(1);
    expect(evaluate(parseExpression(Array(1500).fill('1').join(' < 2 == 2 > ')), {})).toBe(true);
    const lines = Array.from({ length: 1500 }, (_, i) => `x${i} = ${i}`).join('\n');
    expect(evaluate(parseProgram(lines + '\nx1499'), {})).toBe(1499);
  });

  it('huge literals', () => {
    expect(syntaxError('9'.repeat(400)).message).toContain('number is too large');
    expect(evaluate(parseExpression(`"${'a'.repeat(19_000)}"`), {})).toHaveLength(19_000);
  });
});

describe('expressions: no way into JS internals', () => {
  const scope = (): Record<string, Value> => ({ input: { a: 1 } });

  it.each([
    ['__proto__', 'name "__proto__" is not defined'],
    ['constructor', 'name "constructor" is not defined'],
    ['toString()', 'unknown function "toString"'],
    ['constructor("return 1")', 'unknown function "constructor"'],
    ['hasOwnProperty("a")', 'unknown function "hasOwnProperty"'],
    ['{}.constructor', 'dict has no field "constructor"'],
    ['{}.constructor()', 'unknown method "constructor" for dict'],
    ['{}.__proto__', 'dict has no field "__proto__"'],
    ['input.__proto__', 'input has no field "__proto__"'],
    ['input.constructor', 'input has no field "constructor"'],
    ['input.toString', 'input has no field "toString"'],
    ['input.toString()', 'unknown method "toString" for dict'],
    ['input.hasOwnProperty("a")', 'unknown method "hasOwnProperty" for dict'],
    ['"".constructor', 'string has no field "constructor"'],
    ['"".constructor("x")', 'unknown method "constructor" for string'],
    ['[].constructor', 'list has no field "constructor"'],
    ['[].map(len)', 'unknown method "map" for list'],
    ['"abc".charAt(0)', 'unknown method "charAt" for string'],
    ['input["__proto__"]', 'input has no key "__proto__"'],
    ['input["constructor"]', 'input has no key "constructor"'],
    ['getattr(input, "constructor")', 'dict has no field "constructor"'],
    ['[1, 2]["length"]', 'list indices must be ints, not string'],
  ])('%s', (source, message) => {
    const err = failure(() => evaluate(parseExpression(source), scope()));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toContain(message);
  });

  it.each([
    ['hasattr(input, "constructor")', false],
    ['hasattr(input, "__proto__")', false],
    ['"toString" in input', false],
    ['"constructor" in {}', false],
    ['getattr(input, "__proto__", "safe")', 'safe'],
    ['input.get("constructor", "safe")', 'safe'],
    ['type(input)', 'dict'],
  ] as [string, Value][])('%s', (source, expected) => {
    expect(evaluate(parseExpression(source), scope())).toEqual(expected);
  });

  it('reads a real own "__proto__" key, and writes one back as plain data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}}') as Value;
    expect(evaluate(parseExpression('input.__proto__.polluted'), { input })).toBe(true);
    const out = evaluate(
      parseExpression('{"__proto__": {"x": 1}, "constructor": 2}'),
      {},
    ) as Record<string, Value>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1},"constructor":2}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps only JSON data from the scope', () => {
    const weird = {
      fn: () => 1,
      undef: undefined,
      nan: NaN,
      date: new Date('2024-01-02T03:04:05Z'),
      list: [() => 1, undefined, Infinity],
      instance: new (class {
        own = 'kept';
        method(): number {
          return 1;
        }
      })(),
    };
    const result = evaluate(parseExpression('input'), { input: weird as unknown as Value });
    expect(result).toEqual({
      nan: null,
      date: '2024-01-02T03:04:05.000Z',
      list: [null, null, null],
      instance: { own: 'kept' },
    });
    expect(() =>
      evaluate(parseExpression('input.fn()'), { input: weird as unknown as Value }),
    ).toThrow('unknown method "fn" for dict');
  });

  it('refuses a scope value that contains itself', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    expect(() => evaluate(parseExpression('input.a'), { input: loop as Value })).toThrow(
      'the value of "input" is nested too deeply (or contains itself)',
    );
  });

  it('copies shared scope objects once, so a wide DAG stays cheap', () => {
    let node: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 200; i++) node = { l: node, r: node };
    expect(evaluate(parseExpression('type(input.l.r)'), { input: node as Value })).toBe('dict');
  });
});

describe('expressions: the caller scope is never changed', () => {
  it('assignments, mutations and returned values leave scope objects alone', () => {
    const scope: Record<string, Value> = {
      input: { a: 1, items: [1, 2], nested: { k: 'v' } },
      steps: { s: { output: [1] } },
    };
    const before = JSON.stringify(scope);
    const result = run(
      `
input["a"] = 100
input.items.append(3)
input.nested["k"] = "changed"
alias = steps.s.output
alias += [2]
alias[0] = 9
steps = "shadowed"
result = {"input": input, "steps": steps}
`,
      scope,
    );
    expect(result).toEqual({
      input: { a: 100, items: [1, 2, 3], nested: { k: 'changed' } },
      steps: 'shadowed',
    });
    expect(JSON.stringify(scope)).toBe(before);
    // The result is a fresh copy too: changing it does not touch the scope.
    ((result as Record<string, Record<string, Value[]>>).input!.items as Value[]).push(4);
    expect(JSON.stringify(scope)).toBe(before);
  });

  it('mutation inside an expression does not leak into the scope', () => {
    const scope: Record<string, Value> = { input: { items: [1] } };
    expect(evaluate(parseExpression('[input.items.append(2), input.items]'), scope)).toEqual([
      null,
      [1, 2],
    ]);
    expect(scope).toEqual({ input: { items: [1] } });
  });

  it('a returned scope value is a copy', () => {
    const items = [{ a: 1 }];
    const out = evaluate(parseExpression('input'), { input: items }) as { a: number }[];
    expect(out).toEqual(items);
    expect(out).not.toBe(items);
    expect(out[0]).not.toBe(items[0]);
  });

  it('evaluations do not share state', () => {
    const program = parseProgram('seen = getattr(input, "n", 0)\nresult = seen + 1');
    expect(evaluate(program, { input: {} })).toBe(1);
    expect(evaluate(program, { input: {} })).toBe(1);
  });
});

describe('expressions: fuzzing only ever yields our two errors', () => {
  // A small deterministic generator, so a failure can be replayed.
  let seed = 12345;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const TOKENS = [
    'x',
    'input',
    'items',
    '.',
    'a',
    '(',
    ')',
    '[',
    ']',
    '{',
    '}',
    ':',
    ',',
    '1',
    '0',
    '-1',
    '2.5',
    '"s"',
    "'t'",
    '+',
    '-',
    '*',
    '/',
    '//',
    '%',
    '**',
    '==',
    '!=',
    '<',
    '>=',
    'in',
    'not',
    'and',
    'or',
    'if',
    'else',
    'for',
    '=',
    '+=',
    'len',
    'range',
    'str',
    'sorted',
    'None',
    'True',
    '\n',
    '\n    ',
    ';',
    'pass',
    'elif',
    '__proto__',
    'constructor',
    '#',
    '\\',
    '"',
    "'",
    '\t',
    '@',
  ];
  const scope = (): Record<string, Value> => ({
    x: [1, 2, 3],
    input: { a: 1, items: [{ a: 2 }, { a: 'b' }] },
  });

  it('survives random token soup and random characters', () => {
    for (let i = 0; i < 4000; i++) {
      const soup =
        i % 4 === 3
          ? Array.from({ length: random(40) }, () => String.fromCharCode(random(128))).join('')
          : Array.from({ length: 1 + random(25) }, () => TOKENS[random(TOKENS.length)]).join(
              random(3) === 0 ? '' : ' ',
            );
      for (const parse of [parseExpression, parseProgram]) {
        try {
          evaluate(parse(soup), scope(), { maxSteps: 5000, maxMillis: 200 });
        } catch (err) {
          if (!(err instanceof ExpressionError || err instanceof ExpressionSyntaxError)) {
            throw new Error(`${JSON.stringify(soup)} threw ${String(err)}`);
          }
        }
      }
    }
  });

  it('evaluates the deepest accepted nesting without trouble', () => {
    // Every level stacks many precedence layers inside one bracket.
    let source = 'x';
    for (let i = 0; i < 15; i++) source = `[not -(1 if ${source} else 2) ** 1 < 3 and 1 or 0][0]`;
    // Each level is `not (-(…) < 3) and 1 or 0`, which is 0 in Python too.
    expect(evaluate(parseExpression(source), { x: 1 })).toBe(0);
    const blocks = Array.from({ length: 90 }, (_, i) => `${' '.repeat(i)}for i${i} in [1]:`);
    const program = `${blocks.join('\n')}\n${' '.repeat(90)}n = len([[[[1]]]])\nn`;
    expect(evaluate(parseProgram(program), {})).toBe(1);
  });
});
