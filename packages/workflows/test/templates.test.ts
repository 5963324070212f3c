// `{{ … }}` placeholders: one that only names a value is read directly, and must render exactly
// what the expression interpreter renders (or fail exactly as it fails).
import { describe, expect, it } from '@jest/globals';
import { renderInContext, renderTemplate, scopeOf, type Context } from '../src/context.js';
import { evaluate, parseExpression, type Value } from '../src/expressions/index.js';

/** What the interpreter alone renders for `{{ source }}`, or its error. */
function interpreted(source: string, scope: Record<string, Value>): string {
  try {
    const value = evaluate(parseExpression(source.replace(/^\$\./, '')), scope);
    return typeof value === 'string' ? value : JSON.stringify(value);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

function rendered(source: string, scope: Record<string, Value>): string {
  try {
    return renderTemplate(`{{ ${source} }}`, scope);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('placeholders that name a value', () => {
  const withUndefined = { gone: undefined, kept: 1 } as unknown as Value;
  const scope: Record<string, Value> = {
    true: true,
    false: false,
    null: null,
    n: 7,
    f: 0.1 + 0.2,
    z: -0,
    text: 'héllo 😀',
    empty: '',
    yes: true,
    nothing: null,
    nan: Number.NaN,
    a: { response: 'ok', nested: { deep: 'x', list: [1, 2] }, n: 3 },
    list: [1, 2, 3],
    withUndefined,
    when: new Date(0) as unknown as Value,
    True: 'shadowed',
    len: 'a value named len',
    ctx: { ticket: 'T-1' },
    input: { ticket: 'T-2' },
  };
  const sources = [
    'n',
    'f',
    'z',
    'text',
    'empty',
    'yes',
    'nothing',
    'nan',
    'true',
    'null',
    'a.response',
    'a.nested.deep',
    'a.nested',
    'a.nested.list',
    'a.missing',
    'a.response.more',
    'list',
    'withUndefined.gone',
    'withUndefined.kept',
    'when',
    'True',
    'None',
    'len',
    'missing',
    'ctx.ticket',
    'input.ticket',
    '$.a.response',
    'a.n + 1',
    'toString',
    'a.constructor',
    'a.__proto__',
  ];
  it.each(sources)('renders {{ %s }} as the interpreter does', (source) => {
    expect(rendered(source, scope)).toBe(interpreted(source, scope));
  });

  it('renders text around placeholders', () => {
    expect(renderTemplate('first {{ n }} and {{a.response}}!', scope)).toBe('first 7 and ok!');
  });
});

describe('placeholders of a step, read in the run context', () => {
  const ctx: Context = {
    workflow: { input: { n: 1 } },
    steps: { first: { output: { response: 'hi' } } },
    n: 1,
    first: { response: 'hi', count: 2 },
    true: 'own true',
    input: 'shadowed by the state input',
  };
  const blended: Context = { ...ctx, ctx: { namespace: 'ops', n: 9 } };
  const input: Value = { ticket: 'T-9', nested: { a: 1 } };
  const sources = [
    'n',
    'first.response',
    'first.count',
    'first.missing',
    'steps.first.output.response',
    'workflow.input.n',
    'input.ticket',
    'input.nested',
    'input.nested.a',
    'true',
    'false',
    'null',
    'ctx.n',
    'ctx.namespace',
    'nope',
    'n * 2',
  ];
  it.each(sources)('renders {{ %s }} as with the whole scope', (source) => {
    for (const context of [ctx, blended]) {
      const text = `<{{ ${source} }}>`;
      let expected: string;
      try {
        expected = renderTemplate(text, scopeOf(context, input));
      } catch (err) {
        expected = `error: ${(err as Error).message}`;
      }
      let actual: string;
      try {
        actual = renderInContext(text, context, input);
      } catch (err) {
        actual = `error: ${(err as Error).message}`;
      }
      expect(actual).toBe(expected);
    }
  });
});

describe('values copied into an expression', () => {
  it('copies an object of scalars as JSON.stringify sees it', () => {
    const odd = { s: 's', n: Number.NaN, b: false, z: null, f: () => 1, u: undefined };
    const scope = { odd: odd as unknown as Value, nested: { odd: odd as unknown as Value } };
    const expected = { s: 's', n: null, b: false, z: null };
    expect(evaluate(parseExpression('odd'), scope)).toEqual(expected);
    expect(evaluate(parseExpression('nested.odd'), scope)).toEqual(expected);
    expect(evaluate(parseExpression('len(odd)'), scope)).toBe(4);
  });
});
