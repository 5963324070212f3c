// What a run's tokens cost: USD per million input and output tokens, by model id. The built-in
// table holds the providers' public list prices; config.yaml's `pricing` overrides and extends it.

/** USD per million tokens, as config.yaml's `pricing` entries are written. */
export interface ModelRate {
  input_per_million: number;
  output_per_million: number;
}

/** The price a model id resolved to. */
export interface ModelPrice extends ModelRate {
  /** The table key that matched: `gpt-4o-mini` for `openai/gpt-4o-mini-2024-07-18`. */
  model: string;
  /** `config` for a `pricing` entry of config.yaml, `built-in` for the table below. */
  source: 'config' | 'built-in';
}

/** Prices of models, and the cost of a run's tokens. */
export interface Pricing {
  /** The price of a model id as stored on runs; undefined when nothing in the table matches. */
  priceOf(model: string | null | undefined): ModelPrice | undefined;
  /** USD for these tokens, rounded to 6 decimals; null when the model has no known price. */
  costOf(
    model: string | null | undefined,
    inputTokens: number,
    outputTokens: number,
  ): number | null;
}

/** The day the built-in prices were read from the providers' price lists. */
export const BUILT_IN_PRICES_AS_OF = '2025-10-15';

/**
 * Public list prices in USD per million tokens, as of BUILT_IN_PRICES_AS_OF: standard tier,
 * uncached input, no batch discount; for models whose price grows past a prompt length
 * (claude-sonnet-4, gemini-2.5-pro) the price of the shorter prompts. Prices change: an entry
 * under `pricing` in config.yaml wins over this table and adds models it lacks.
 */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelRate>> = {
  // OpenAI
  'gpt-4o': { input_per_million: 2.5, output_per_million: 10 },
  'gpt-4o-mini': { input_per_million: 0.15, output_per_million: 0.6 },
  'gpt-4.1': { input_per_million: 2, output_per_million: 8 },
  'gpt-4.1-mini': { input_per_million: 0.4, output_per_million: 1.6 },
  'gpt-4.1-nano': { input_per_million: 0.1, output_per_million: 0.4 },
  o3: { input_per_million: 2, output_per_million: 8 },
  'o3-mini': { input_per_million: 1.1, output_per_million: 4.4 },
  'o4-mini': { input_per_million: 1.1, output_per_million: 4.4 },
  'gpt-5': { input_per_million: 1.25, output_per_million: 10 },
  'gpt-5-mini': { input_per_million: 0.25, output_per_million: 2 },
  'gpt-5-nano': { input_per_million: 0.05, output_per_million: 0.4 },
  // Anthropic
  'claude-3-5-haiku': { input_per_million: 0.8, output_per_million: 4 },
  'claude-3-7-sonnet': { input_per_million: 3, output_per_million: 15 },
  'claude-sonnet-4': { input_per_million: 3, output_per_million: 15 },
  'claude-opus-4': { input_per_million: 15, output_per_million: 75 },
  'claude-haiku-4-5': { input_per_million: 1, output_per_million: 5 },
  'claude-sonnet-4-5': { input_per_million: 3, output_per_million: 15 },
  // Google
  'gemini-2.0-flash': { input_per_million: 0.1, output_per_million: 0.4 },
  'gemini-2.0-flash-lite': { input_per_million: 0.075, output_per_million: 0.3 },
  'gemini-2.5-flash': { input_per_million: 0.3, output_per_million: 2.5 },
  'gemini-2.5-flash-lite': { input_per_million: 0.1, output_per_million: 0.4 },
  'gemini-2.5-pro': { input_per_million: 1.25, output_per_million: 10 },
};

/**
 * What may follow a table key in a dated or versioned id of the same model: `-2024-07-18`,
 * `-20250514`, `@20241022`, `-001`, `-latest`, `-preview-05-06`, `-exp-03-25`, `:8b`. A word
 * such as `-mini`, `-nano` or `-lite` names another model, priced differently, so it never matches.
 */
const VARIANT_SUFFIX = /^[-@:](?:\d|latest|preview|exp)/;

/** Rounds an amount of USD to 6 decimals (a millionth of a dollar), as every cost is shown. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

/**
 * The built-in prices with `overrides` (config.yaml's `pricing`) over them. A model id is
 * matched exactly, then without its `provider/` prefix, then by the longest key of which it is
 * a dated or versioned variant (`claude-sonnet-4-20250514` → `claude-sonnet-4`); case is ignored.
 */
export function createPricing(overrides: Readonly<Record<string, ModelRate>> = {}): Pricing {
  const table = new Map<string, ModelPrice>();
  const add = (
    entries: Readonly<Record<string, ModelRate>>,
    source: ModelPrice['source'],
  ): void => {
    for (const [model, rate] of Object.entries(entries)) {
      table.set(model.trim().toLowerCase(), {
        model,
        source,
        input_per_million: rate.input_per_million,
        output_per_million: rate.output_per_million,
      });
    }
  };
  add(BUILT_IN_PRICES, 'built-in');
  add(overrides, 'config');

  const priceOf = (model: string | null | undefined): ModelPrice | undefined => {
    let name = (model ?? '').trim().toLowerCase();
    if (name === '') return undefined;
    // `openai/gpt-4o`, then `gpt-4o`; `openrouter/openai/gpt-4o` tries `openai/gpt-4o` between.
    for (;;) {
      const exact = table.get(name);
      if (exact) return exact;
      const slash = name.indexOf('/');
      if (slash < 0) break;
      name = name.slice(slash + 1);
    }
    let best: { key: string; price: ModelPrice } | undefined;
    for (const [key, price] of table) {
      if (
        name.startsWith(key) &&
        VARIANT_SUFFIX.test(name.slice(key.length)) &&
        key.length > (best?.key.length ?? 0)
      ) {
        best = { key, price };
      }
    }
    return best?.price;
  };

  return {
    priceOf,
    costOf(model, inputTokens, outputTokens) {
      const price = priceOf(model);
      if (!price) return null;
      // In millionths of a dollar the price per million tokens is the price per token.
      const micros =
        inputTokens * price.input_per_million + outputTokens * price.output_per_million;
      return Math.round(micros) / 1_000_000;
    },
  };
}
