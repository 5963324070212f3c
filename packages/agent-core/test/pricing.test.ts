import { describe, expect, it } from '@jest/globals';
import { openStore } from '@junction/store';
import { BUILT_IN_PRICES, createPricing, roundUsd } from '../src/models/pricing.js';
import { runView } from '../src/runs/index.js';

describe('createPricing', () => {
  const pricing = createPricing();

  it('prices a model id as stored on runs: bare, with its provider, dated', () => {
    for (const id of [
      'gpt-4o-mini',
      'openai/gpt-4o-mini',
      'gpt-4o-mini-2024-07-18',
      'openai/gpt-4o-mini-2024-07-18',
      'OpenAI/GPT-4o-mini',
    ]) {
      expect(pricing.priceOf(id)).toEqual({
        model: 'gpt-4o-mini',
        source: 'built-in',
        input_per_million: 0.15,
        output_per_million: 0.6,
      });
    }
    expect(pricing.priceOf('anthropic/claude-sonnet-4-20250514')?.model).toBe('claude-sonnet-4');
    expect(pricing.priceOf('claude-sonnet-4-5-20250929')?.model).toBe('claude-sonnet-4-5');
    expect(pricing.priceOf('claude-3-5-haiku-latest')?.model).toBe('claude-3-5-haiku');
    expect(pricing.priceOf('claude-opus-4@20250514')?.model).toBe('claude-opus-4');
    expect(pricing.priceOf('google/gemini-2.0-flash-001')?.model).toBe('gemini-2.0-flash');
    expect(pricing.priceOf('gemini-2.5-pro-preview-06-05')?.model).toBe('gemini-2.5-pro');
    expect(pricing.priceOf('openrouter/openai/gpt-4.1-mini')?.model).toBe('gpt-4.1-mini');
  });

  it('takes the longest key, and never a sibling model priced differently', () => {
    expect(pricing.priceOf('gpt-4.1-nano-2025-04-14')?.model).toBe('gpt-4.1-nano');
    expect(pricing.priceOf('gpt-4o-2024-08-06')?.model).toBe('gpt-4o');
    expect(pricing.priceOf('gemini-2.5-flash-lite')?.model).toBe('gemini-2.5-flash-lite');
    // gpt-5-pro is not gpt-5, o3-pro is not o3: unknown rather than a wrong price.
    expect(pricing.priceOf('openai/gpt-5-pro')).toBeUndefined();
    expect(pricing.priceOf('o3-pro-2025-06-10')).toBeUndefined();
    expect(pricing.priceOf('gpt-4o-audio-preview')).toBeUndefined();
  });

  it('gives null for a model without a price, and for a run without a model', () => {
    expect(pricing.costOf('ollama/llama3.2', 1000, 1000)).toBeNull();
    expect(pricing.costOf('openai-compatible/mock', 10, 10)).toBeNull();
    expect(pricing.costOf(null, 10, 10)).toBeNull();
    expect(pricing.costOf(undefined, 10, 10)).toBeNull();
    expect(pricing.costOf('  ', 10, 10)).toBeNull();
  });

  it('costs tokens at the price per million, rounded to 6 decimals', () => {
    // gpt-4o: 100 × $2.50 + 50 × $10 per million.
    expect(pricing.costOf('openai/gpt-4o', 100, 50)).toBe(0.00075);
    // gpt-4o-mini: 1000 × $0.15 + 10 × $0.60 per million.
    expect(pricing.costOf('gpt-4o-mini', 1000, 10)).toBe(0.000156);
    // gemini-2.0-flash-lite: 1 × $0.075 per million is 0.075 millionths: rounds to 0.
    expect(pricing.costOf('gemini-2.0-flash-lite', 1, 0)).toBe(0);
    expect(pricing.costOf('gemini-2.0-flash-lite', 7, 0)).toBe(0.000001);
    expect(pricing.costOf('claude-opus-4-20250514', 2_000_000, 1_000_000)).toBe(105);
    expect(pricing.costOf('gpt-4o', 0, 0)).toBe(0);
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
  });

  it('lets config.yaml override a built-in price and add models', () => {
    const configured = createPricing({
      'gpt-4o': { input_per_million: 1, output_per_million: 2 },
      'llama3.2': { input_per_million: 0, output_per_million: 0 },
      'openai-compatible/mock': { input_per_million: 3, output_per_million: 4 },
    });
    expect(configured.priceOf('openai/gpt-4o-2024-11-20')).toEqual({
      model: 'gpt-4o',
      source: 'config',
      input_per_million: 1,
      output_per_million: 2,
    });
    expect(configured.costOf('openai/gpt-4o', 100, 50)).toBe(0.0002);
    // The rest of the table stays.
    expect(configured.costOf('gpt-4o-mini', 1000, 10)).toBe(0.000156);
    expect(configured.costOf('ollama/llama3.2', 5000, 5000)).toBe(0);
    expect(configured.costOf('ollama/llama3.2:3b', 5000, 5000)).toBe(0);
    expect(configured.costOf('openai-compatible/mock', 1_000_000, 1_000_000)).toBe(7);
    // Overrides never change the built-in table itself.
    expect(BUILT_IN_PRICES['gpt-4o']).toEqual({ input_per_million: 2.5, output_per_million: 10 });
    expect(pricing.costOf('openai/gpt-4o', 100, 50)).toBe(0.00075);
  });

  it('has a price for every model the docs promise', () => {
    const promised = [
      'gpt-4o',
      'gpt-4o-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'o3',
      'o4-mini',
      'gpt-5',
      'gpt-5-mini',
      'claude-3-5-haiku',
      'claude-3-7-sonnet',
      'claude-sonnet-4',
      'claude-opus-4',
      'claude-haiku-4-5',
      'claude-sonnet-4-5',
      'gemini-2.0-flash',
      'gemini-2.5-flash',
      'gemini-2.5-pro',
    ];
    expect(promised.filter((model) => pricing.priceOf(model)?.model !== model)).toEqual([]);
  });
});

describe('runView cost_usd', () => {
  it('prices a finished run with the built-in table, or with the pricing it is given', async () => {
    const store = await openStore({ url: ':memory:' });
    try {
      const env = await store.environments.ensure('default');
      const created = await store.runs.create({
        agentName: 'writer',
        environmentId: env.id,
        task: 't',
        source: 'cli',
      });
      expect(runView(created).cost_usd).toBeNull();
      await store.runs.claimNext('w', 60_000);
      const done = await store.runs.markCompleted(created.id, {
        model: 'openai/gpt-4o-mini',
        inputTokens: 1000,
        outputTokens: 10,
      });
      expect(runView(done).cost_usd).toBe(0.000156);
      const configured = createPricing({
        'gpt-4o-mini': { input_per_million: 10, output_per_million: 100 },
      });
      expect(runView(done, configured).cost_usd).toBe(0.011);
    } finally {
      await store.close();
    }
  });
});
