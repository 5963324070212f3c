import { describe, expect, it } from '@jest/globals';
import {
  evaluate,
  ExpressionError,
  ExpressionSyntaxError,
  isTruthy,
  parseExpression,
  parseProgram,
  type Limits,
  type Value,
} from '../src/expressions/index.js';

// A scope shaped like the one the engine passes to `if:` conditions and transforms.
function makeScope(): Record<string, Value> {
  return {
    input: {
      severity: 'high',
      a: 2,
      b: 3,
      region: 'eu-west-1',
      items: [
        { name: 'disk', cost: 2 },
        { name: 'cpu', cost: 3.5 },
      ],
      tags: ['a', 'b'],
      nested: { deep: { value: 42 } },
      text: '  Hello World  ',
      empty: '',
      none: null,
    },
    steps: {
      scan: { output: { findings: [{ id: 1, severity: 'critical' }] } },
      analyze: { output: { score: 0.9, verdict: 'ok' } },
    },
    ctx: { retry: 1 },
    _value: 7,
    status: 'ok',
    labels: ['critical', 'bug'],
  };
}

function expr(source: string, extra: Record<string, Value> = {}, limits?: Limits): Value {
  return evaluate(parseExpression(source), { ...makeScope(), ...extra }, limits);
}

function prog(source: string, extra: Record<string, Value> = {}, limits?: Limits): Value {
  return evaluate(parseProgram(source), { ...makeScope(), ...extra }, limits);
}

/** The error a thunk throws (fails the test if it does not throw). */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

// [source, expected value] evaluated as one expression (an `if:` condition).
const EXPRESSIONS: [string, Value][] = [
  // conditions as written in workflow files
  ['input.severity == "high"', true],
  ['input.severity != "high"', false],
  ['_value > 5 and status != "error"', true],
  ['_value > 10 or status == "error"', false],
  ['len(steps.scan.output.findings) > 0', true],
  ['steps.scan.output.findings[0].severity == "critical"', true],
  ['hasattr(ctx, "retry") and ctx.retry < 3', true],
  ['hasattr(ctx, "missing") and ctx.missing < 3', false],
  ['getattr(input, "region", "us-east-1")', 'eu-west-1'],
  ['getattr(input, "zone", "us-east-1")', 'us-east-1'],
  ['getattr(ctx, "retry")', 1],
  ['"critical" in labels', true],
  ['"minor" not in labels', true],
  ['steps.analyze.output.score >= 0.8 and steps.analyze.output.verdict == "ok"', true],
  ['input.nested.deep.value', 42],
  ['input["severity"]', 'high'],
  ['steps["scan"]["output"]["findings"][-1]["id"]', 1],
  ['input.none == None', true],
  ['not input.empty', true],
  ['input.a == 2 and\n    input.b == 3', true],
  ['  input.a  # a comment\n', 2],
  // literals
  ['42', 42],
  ['1_000_000', 1000000],
  ['3.25', 3.25],
  ['.5', 0.5],
  ['1e3', 1000],
  ['"double"', 'double'],
  ["'single'", 'single'],
  ['"esc: \\n\\t\\\\ \\" \\u00e9"', 'esc: \n\t\\ " é'],
  ["'it\\'s'", "it's"],
  ['"""triple "quoted" string"""', 'triple "quoted" string'],
  ["'''two\nlines'''", 'two\nlines'],
  ['"adjacent " "strings"', 'adjacent strings'],
  ['"unknown \\d escape"', 'unknown \\d escape'],
  ['True', true],
  ['False', false],
  ['None', null],
  ['[1, "two", None, [3]]', [1, 'two', null, [3]]],
  ['[1, 2,]', [1, 2]],
  ['{"a": 1, "b": {"c": [True]}}', { a: 1, b: { c: [true] } }],
  ['{}', {}],
  ['(1, 2)', [1, 2]],
  ['(1,)', [1]],
  ['()', []],
  ['(((7)))', 7],
  // arithmetic
  ['1 + 2 * 3', 7],
  ['(1 + 2) * 3', 9],
  ['10 - 2 - 3', 5],
  ['7 / 2', 3.5],
  ['7 // 2', 3],
  ['-7 // 2', -4],
  ['7 % 3', 1],
  ['-7 % 3', 2],
  ['7 % -3', -2],
  ['2 ** 10', 1024],
  ['2 ** 3 ** 2', 512],
  ['-2 ** 2', -4],
  ['-input.a', -2],
  ['+input.a', 2],
  ['- -3', 3],
  ['0.1 + 0.2 > 0.3', true],
  // strings and lists
  ['"ab" + "cd"', 'abcd'],
  ['"ab" * 3', 'ababab'],
  ['3 * "ab"', 'ababab'],
  ['"ab" * -1', ''],
  ['[1] + [2, 3]', [1, 2, 3]],
  ['[0] * 3', [0, 0, 0]],
  ['input.tags + ["c"]', ['a', 'b', 'c']],
  // comparisons
  ['1 < 2 < 3', true],
  ['3 > 2 > 2', false],
  ['"apple" < "banana"', true],
  ['[1, 2] < [1, 3]', true],
  ['[1, 2] == [1, 2]', true],
  ['{"a": [1, {"b": 2}]} == {"a": [1, {"b": 2}]}', true],
  ['{"a": 1} == {"a": 2}', false],
  ['1 == 1.0', true],
  ['1 == "1"', false],
  ['True == 1', false],
  ['None == None', true],
  ['False < True', true],
  // membership
  ['2 in [1, 2, 3]', true],
  ['[1] in [[1], [2]]', true],
  ['"ell" in "hello"', true],
  ['"severity" in input', true],
  ['"nope" in input', false],
  ['1 in {"a": 1}', false],
  // boolean operators return operands, like Python
  ['0 or "fallback"', 'fallback'],
  ['"first" or "second"', 'first'],
  ['[] and 1', []],
  ['1 and 2', 2],
  ['None or [] or {}', {}],
  ['not None', true],
  ['not not [1]', true],
  ['"yes" if input.a > 1 else "no"', 'yes'],
  ['"yes" if input.a > 5 else "no" if input.b > 5 else "neither"', 'neither'],
  // indexing and slicing
  ['[10, 20, 30][1]', 20],
  ['[10, 20, 30][-1]', 30],
  ['"hello"[0]', 'h'],
  ['"hello"[1:3]', 'el'],
  ['"hello"[::-1]', 'olleh'],
  ['[1, 2, 3, 4, 5][1:-1]', [2, 3, 4]],
  ['[1, 2, 3, 4, 5][::2]', [1, 3, 5]],
  ['[1, 2, 3][5:10]', []],
  ['[1, 2, 3][-10:2]', [1, 2]],
  ['[1, 2, 3, 4][3:0:-1]', [4, 3, 2]],
  // builtins
  ['len("héllo")', 5],
  ['len({"a": 1, "b": 2})', 2],
  ['str(12)', '12'],
  ['str(1.5)', '1.5'],
  ['str(None)', 'None'],
  ['str(True)', 'True'],
  ['str([1, "a", None, {"k": False}])', '[1, "a", None, {"k": False}]'],
  ['repr("x")', '"x"'],
  ['int("42")', 42],
  ['int(" -7 ")', -7],
  ['int(3.9)', 3],
  ['int(-3.9)', -3],
  ['int(True)', 1],
  ['float("2.5")', 2.5],
  ['float("1e3")', 1000],
  ['float(2)', 2],
  ['bool([])', false],
  ['bool("x")', true],
  ['list("abc")', ['a', 'b', 'c']],
  ['list({"a": 1, "b": 2})', ['a', 'b']],
  ['dict([["a", 1], ["b", 2]])', { a: 1, b: 2 }],
  ['dict(input.nested, extra=1)', { deep: { value: 42 }, extra: 1 }],
  ['min(3, 1, 2)', 1],
  ['max([3, 1, 2])', 3],
  ['max([], default=0)', 0],
  ['min(["b", "a"])', 'a'],
  ['abs(-4.5)', 4.5],
  ['sorted([3, 1, 2])', [1, 2, 3]],
  ['sorted(["b", "c", "a"], reverse=True)', ['c', 'b', 'a']],
  ['range(5)', [0, 1, 2, 3, 4]],
  ['range(1, 10, 3)', [1, 4, 7]],
  ['range(5, 0, -2)', [5, 3, 1]],
  ['any([0, None, 3])', true],
  ['all([1, "x", []])', false],
  ['any(x.cost > 3 for x in input.items)', true],
  ['type(1)', 'int'],
  ['type(1.5)', 'float'],
  ['type("s")', 'string'],
  ['type(None)', 'NoneType'],
  ['type([])', 'list'],
  ['type(input)', 'dict'],
  ['type(True)', 'bool'],
  ['sum([1, 2, 3.5])', 6.5],
  [
    'enumerate(["a", "b"])',
    [
      [0, 'a'],
      [1, 'b'],
    ],
  ],
  // methods
  ['input.text.strip()', 'Hello World'],
  ['input.text.lstrip()', 'Hello World  '],
  ['"xxhixx".strip("x")', 'hi'],
  ['"Hello".upper() + "Hello".lower()', 'HELLOhello'],
  ['"report.pdf".endswith(".pdf")', true],
  ['"report.pdf".startswith(("img", "rep"))', true],
  ['"a,b,,c".split(",")', ['a', 'b', '', 'c']],
  ['"  a  b c ".split()', ['a', 'b', 'c']],
  ['", ".join(["a", "b", "c"])', 'a, b, c'],
  ['"-".join(input.tags)', 'a-b'],
  ['"a.b.c".replace(".", "/")', 'a/b/c'],
  ['"hello".find("l")', 2],
  ['"hello".find("z")', -1],
  ['input.get("severity")', 'high'],
  ['input.get("zone")', null],
  ['input.get("zone", "none")', 'none'],
  ['input.nested.keys()', ['deep']],
  ['{"a": 1, "b": 2}.values()', [1, 2]],
  ['{"a": 1}.items()', [['a', 1]]],
  ['[1, 2, 3].index(2)', 1],
  // comprehensions
  ['[x * 2 for x in [1, 2, 3]]', [2, 4, 6]],
  ['[x for x in range(10) if x % 3 == 0]', [0, 3, 6, 9]],
  ['[i.name for i in input.items if i.cost > 2]', ['cpu']],
  [
    '[[x, y] for x in [1, 2] for y in "ab"]',
    [
      [1, 'a'],
      [1, 'b'],
      [2, 'a'],
      [2, 'b'],
    ],
  ],
  ['[k for k, v in {"a": 1, "b": 0}.items() if v]', ['a']],
  ['{i.name: i.cost for i in input.items}', { disk: 2, cpu: 3.5 }],
  ['{k: v * 10 for k, v in {"x": 1}.items()}', { x: 10 }],
  ['[x for x in [1, 2]] + [x for x in [3]]', [1, 2, 3]],
];

// [name, program source, expected result].
const PROGRAMS: [string, string, Value][] = [
  [
    'sums costs into result',
    `
total = 0
for item in input.items:
    total += item.cost
result = {"total": total, "count": len(input.items)}
`,
    { total: 5.5, count: 2 },
  ],
  [
    'strips a YAML block indentation',
    `

        total = 0
        for item in input.items:
            if item.cost > 2:
                total += item.cost
        result = total

`,
    3.5,
  ],
  ['a single expression', "{'total': input.a + input.b}", { total: 5 }],
  [
    'a dict with a step output',
    '{"summary": steps.analyze.output, "ok": True}',
    {
      summary: { score: 0.9, verdict: 'ok' },
      ok: true,
    },
  ],
  ['the last expression wins over result', 'result = 1\nresult + 1', 2],
  ['None when nothing is produced', 'x = 1', null],
  ['an empty program is None', '\n  # only a comment\n', null],
  ['semicolons separate statements', 'a = 1; b = 2; a + b', 3],
  [
    'if/elif/else',
    'x = 5\nif x > 10:\n    r = "big"\nelif x > 3:\n    r = "mid"\nelse:\n    r = "small"\nr',
    'mid',
  ],
  ['one-line blocks', 'x = 0\nif True: x = 1\nx', 1],
  ['nested blocks with tabs', 'n = 0\nfor i in range(3):\n\tfor j in range(2):\n\t\tn += 1\nn', 6],
  ['two-space indentation', 'n = 0\nfor i in range(3):\n  if i != 1:\n    n += i\nn', 2],
  ['pass', 'for x in [1]:\n    pass\nresult = "done"', 'done'],
  [
    'if inside for, with elif',
    'out = []\nfor i in range(8):\n    if i % 2 == 0:\n        pass\n    elif i > 6:\n        out.append(-i)\n    else:\n        out.append(i)\nout',
    [1, 3, 5, -7],
  ],
  [
    'subscript assignment',
    'd = {"a": 1}\nd["b"] = 2\nxs = [1, 2, 3]\nxs[0] = 9\nxs[-1] += 10\n[d, xs]',
    [{ a: 1, b: 2 }, [9, 2, 13]],
  ],
  ['augmented operators', 'x = 10\nx -= 3\nx *= 2\nx //= 4\nx %= 2\nx', 1],
  [
    'list append and extend',
    'xs = []\nxs.append(1)\nxs.extend([2, 3])\nxs += [4]\nxs',
    [1, 2, 3, 4],
  ],
  ['+= on a list extends it in place', 'a = [1]\nb = a\na += [2]\nb', [1, 2]],
  [
    'dict mutation methods',
    'd = {"a": 1}\nd.update({"b": 2}, c=3)\nd.update(a=0)\nd',
    { a: 0, b: 2, c: 3 },
  ],
  ['list pop and remove', 'xs = [1, 2, 3, 4]\nxs.pop()\nxs.pop(0)\nxs.remove(3)\nxs', [2]],
  ['tuple unpacking', 'a, b = 1, 2\na, b = b, a\n[a, b]', [2, 1]],
  [
    'for with unpacking',
    'out = {}\nfor k, v in {"x": 1, "y": 2}.items():\n    out[k] = v * 2\nout',
    { x: 2, y: 4 },
  ],
  ['locals shadow scope names', 'input = 5\ninput + 1', 6],
  ['comprehension variables do not leak', 'x = "outer"\nys = [x for x in [1, 2]]\nx', 'outer'],
  [
    'a loop walks a snapshot, so growing the list inside it ends',
    'xs = [1, 2]\nfor x in xs:\n    xs.append(x * 10)\nxs',
    [1, 2, 10, 20],
  ],
  ['loop variables do leak, as in Python', 'for i in range(3):\n    pass\ni', 2],
  [
    'a result built from filtered findings',
    `
critical = [f for f in steps.scan.output.findings if f.severity == "critical"]
result = {"count": len(critical), "ids": [f.id for f in critical]}
`,
    { count: 1, ids: [1] },
  ],
  [
    'line continuation and brackets across lines',
    'x = [\n    1,\n    2,\n]\ny = 1 + \\\n    2\nx + [y]',
    [1, 2, 3],
  ],
  [
    'a dict key named __proto__ is plain data',
    'd = {}\nd["__proto__"] = {"polluted": True}\nd',
    JSON.parse('{"__proto__": {"polluted": true}}') as Value,
  ],
];

describe('expressions: values', () => {
  it.each(EXPRESSIONS)('%s', (source, expected) => {
    expect(expr(source)).toEqual(expected);
  });

  it('has a large enough table', () => {
    expect(EXPRESSIONS.length + PROGRAMS.length).toBeGreaterThanOrEqual(80);
  });
});

describe('expressions: programs', () => {
  it.each(PROGRAMS)('%s', (_name, source, expected) => {
    expect(prog(source)).toEqual(expected);
  });

  it('parses a program once and evaluates it against many scopes', () => {
    const program = parseProgram('result = input.a * 2');
    expect(evaluate(program, { input: { a: 1 } })).toBe(2);
    expect(evaluate(program, { input: { a: 21 } })).toBe(42);
    expect(program).toEqual({ source: 'result = input.a * 2', mode: 'program' });
  });

  it('re-parses a Program that lost its AST (for example after a JSON round trip)', () => {
    const copy = JSON.parse(JSON.stringify(parseExpression('input.a + 1'))) as ReturnType<
      typeof parseExpression
    >;
    expect(evaluate(copy, { input: { a: 1 } })).toBe(2);
  });
});

// [source, mode, message, line, column]
const SYNTAX_ERRORS: [string, 'expression' | 'program', string, number, number][] = [
  ['input.a == 1)', 'expression', 'unexpected ")"', 1, 13],
  ['len(steps.scan.output.findings)) > 0', 'expression', 'unexpected ")"', 1, 32],
  ['1 +', 'expression', 'unexpected end of input', 1, 4],
  ['', 'expression', 'the expression is empty', 1, 1],
  ['(1, 2', 'expression', '"(" was never closed', 1, 1],
  ['x = 1\ny = (2 +\n', 'program', '"(" was never closed', 2, 5],
  ['x = 1\ny = = 2', 'program', 'unexpected "="', 2, 5],
  ['if x\n    y = 1', 'program', 'expected ":" but found end of line', 1, 5],
  ['if x:\ny = 1', 'program', 'expected an indented block', 2, 1],
  ['if x:\n    y = 1\n  z = 2', 'program', 'indentation does not match any outer block', 3, 3],
  ['x = 1\n    y = 2', 'program', 'unexpected indentation', 2, 5],
  ['for i in range(3):\n    x = 1\n\ty = 2', 'program', 'indentation does not match', 3, 2],
  ['\n    total = 0\n    total = )\n', 'program', 'unexpected ")"', 3, 13],
  ['"abc', 'expression', 'unterminated string', 1, 1],
  ['x = "ab\ncd"', 'program', 'unterminated string', 1, 5],
  ['1 @ 2', 'expression', 'unexpected character "@"', 1, 3],
  ['a && b', 'expression', 'unexpected "&&" (use "and")', 1, 3],
  ['!a', 'expression', 'unexpected "!" (use "not")', 1, 1],
  ['def f():\n    pass', 'program', '"def" is not supported', 1, 1],
  ['lambda x: x', 'expression', '"lambda" is not supported', 1, 1],
  ['while True:\n    pass', 'program', '"while" is not supported', 1, 1],
  ['x is None', 'expression', '"is" is not supported (use == or !=)', 1, 3],
  ['{1, 2}', 'expression', 'set literals are not supported', 1, 3],
  ['f"{x}"', 'expression', 'string prefix "f" is not supported', 1, 1],
  ['for x in y:\n    break', 'program', '"break" is not supported', 2, 5],
  ['r"raw"', 'expression', 'string prefix "r" is not supported', 1, 1],
  ['0x1F', 'expression', 'invalid number "0x"', 1, 1],
  ['f(a=1, 2)', 'expression', 'positional argument follows keyword argument', 1, 8],
  ['input.a = 1', 'program', 'cannot assign to field "a"', 1, 1],
  ['1 = x', 'program', 'cannot assign to a literal', 1, 1],
  ['f() = 1', 'program', 'cannot assign to a function call', 1, 1],
  ['a, b += 1', 'program', 'cannot use += on a tuple', 1, 1],
  ['007', 'expression', 'leading zeros are not allowed', 1, 1],
  ['1abc', 'expression', 'invalid number "1a"', 1, 1],
  ['1e400', 'expression', 'number is too large', 1, 1],
  ['12345678901234567890', 'expression', 'is too large', 1, 1],
  ['"\\u12"', 'expression', 'invalid \\u escape', 1, 2],
  ['x = 1 if True', 'program', 'expected "else" but found end of line', 1, 14],
  ['[1 2]', 'expression', 'expected "]" but found number 2', 1, 4],
  ['input.', 'expression', 'expected a field name but found end of input', 1, 7],
  ['x[1, 2]', 'expression', 'expected "]" but found ","', 1, 4],
  ['a = 1\nelse:\n    pass', 'program', 'unexpected "else"', 2, 1],
  ['x = 1\n', 'expression', 'unexpected "="', 1, 3],
];

describe('expressions: syntax errors', () => {
  it.each(SYNTAX_ERRORS)('%j', (source, mode, message, line, column) => {
    const parse = mode === 'expression' ? parseExpression : parseProgram;
    const err = thrown(() => parse(source));
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    expect(err.message).toContain(message);
    expect(err.message).toContain(`at line ${line}, column ${column}`);
    expect((err as ExpressionSyntaxError).line).toBe(line);
    expect((err as ExpressionSyntaxError).column).toBe(column);
  });

  it('rejects sources over 20,000 characters', () => {
    const err = thrown(() => parseExpression('1' + ' '.repeat(20_000)));
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    expect(err.message).toContain('more than the limit of 20000');
  });
});

// [source, mode, message fragment]
const RUNTIME_ERRORS: [string, 'expression' | 'program', string][] = [
  [
    'foo',
    'expression',
    'name "foo" is not defined (known: input, steps, ctx, _value, status, labels)',
  ],
  [
    'x = 1\ny',
    'program',
    'name "y" is not defined (known: input, steps, ctx, _value, status, labels, x)',
  ],
  ['input.zone', 'expression', 'input has no field "zone" (use getattr(input, "zone", default)'],
  ['input.nested.deep.nope', 'expression', 'input.nested.deep has no field "nope"'],
  ['input.none.x', 'expression', 'input.none is NoneType and has no field "x"'],
  ['"abc".upper', 'expression', 'upper is a method of string; call it as .upper()'],
  ['input["zone"]', 'expression', 'input has no key "zone"'],
  ['[1, 2][2]', 'expression', 'index 2 is out of range for a list of length 2'],
  ['"ab"[-3]', 'expression', 'index -3 is out of range for a string of length 2'],
  ['[1]["a"]', 'expression', 'list indices must be ints, not string'],
  ['5[0]', 'expression', 'int cannot be indexed'],
  ['1 / 0', 'expression', 'division by zero'],
  ['1 // 0', 'expression', 'division by zero'],
  ['1 % 0', 'expression', 'division by zero'],
  ['1 + "a"', 'expression', 'unsupported operand types for +: int and string'],
  ['[1] + "a"', 'expression', 'unsupported operand types for +: list and string'],
  ['True + 1', 'expression', 'unsupported operand types for +: bool and int'],
  ['-"a"', 'expression', 'bad operand type for unary -: string'],
  ['1 < "a"', 'expression', 'cannot compare int and string with <'],
  ['{} < {}', 'expression', 'cannot compare dict and dict with <'],
  ['sorted([1, "a"])', 'expression', 'cannot compare'],
  ['1 in 5', 'expression', '"in" needs a list, dict or string on the right, not int'],
  ['1 in "abc"', 'expression', '"in" on a string needs a string on the left'],
  ['"%s" % 1', 'expression', '"%" formatting is not supported'],
  ['10.0 ** 400', 'expression', 'number is too large'],
  ['nope(1)', 'expression', 'unknown function "nope"'],
  ['print("x")', 'expression', 'unknown function "print"'],
  ['eval("1")', 'expression', 'unknown function "eval"'],
  ['input()', 'expression', 'input is dict, not a function'],
  ['input.a()', 'expression', 'input.a is int, not a function'],
  ['[1][0]()', 'expression', 'value is int, not a function'],
  ['"x".nope()', 'expression', 'unknown method "nope" for string'],
  ['len', 'expression', 'len is a function; call it as len(...)'],
  ['len(1)', 'expression', 'len() needs a string, list or dict, not int'],
  ['len()', 'expression', 'len() is missing the argument "x"'],
  ['len([], [])', 'expression', 'len() takes at most 1 arguments (2 given)'],
  ['sorted([], key=1)', 'expression', 'sorted() got an unexpected keyword argument "key"'],
  ['int("3.5")', 'expression', 'int() cannot convert "3.5" to an integer'],
  ['float("abc")', 'expression', 'float() cannot convert "abc" to a number'],
  ['float("inf")', 'expression', 'float() cannot convert "inf"'],
  ['getattr(input, "zone")', 'expression', 'dict has no field "zone"'],
  ['max([])', 'expression', 'max() of an empty sequence'],
  ['range(1, 2, 0)', 'expression', 'range() step cannot be zero'],
  ['[1][::0]', 'expression', 'slice step cannot be zero'],
  ['{1: "a"}', 'expression', 'dict keys must be strings, not int'],
  ['[].pop()', 'expression', 'pop from an empty list'],
  ['"a,b".split("")', 'expression', 'split() separator cannot be empty'],
  ['"{}".format(1)', 'expression', 'unknown method "format" for string'],
  ['",".join([1])', 'expression', 'join() needs strings, but item 0 is int'],
  ['a, b = [1, 2, 3]', 'program', 'cannot unpack 3 values into 2 targets'],
  ['"abc"[0] = "x"', 'program', 'string does not support item assignment'],
  ['for x in 5:\n    pass', 'program', 'int is not iterable'],
  ['[1].index(2)', 'expression', '2 is not in the list'],
  ['int(None)', 'expression', 'int() argument must be a number, not NoneType'],
  ['dict(None)', 'expression', 'NoneType is not iterable'],
];

describe('expressions: runtime errors', () => {
  it.each(RUNTIME_ERRORS)('%j', (source, mode, message) => {
    const err = thrown(() => (mode === 'expression' ? expr(source) : prog(source)));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toContain(message);
  });
});

describe('expressions: isTruthy', () => {
  it.each([
    [null, false],
    [false, false],
    [true, true],
    [0, false],
    [0.5, true],
    ['', false],
    ['x', true],
    [[], false],
    [[0], true],
    [{}, false],
    [{ a: null }, true],
  ] as [Value, boolean][])('%j is %s', (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });

  it('agrees with bool() in the language', () => {
    for (const source of ['0', '""', '[]', '{}', 'None', '1', '"a"', '[0]', '{"a": 1}']) {
      expect(isTruthy(expr(source))).toBe(expr(`bool(${source})`));
    }
  });
});
