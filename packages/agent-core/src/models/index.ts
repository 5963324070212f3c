// Which model an agent uses (model-factory.ts), whether it can run (model-check.ts), what
// a provider's failure means (model-errors.ts), and what its tokens cost (pricing.ts).
export { createModelCheck } from './model-check.js';
export type { ModelCheck } from './model-check.js';
export { modelSecrets, PROVIDER_KEY_ENV, PROVIDERS, resolveModel } from './model-factory.js';
export type { ModelSettings } from './model-factory.js';
export { classifyProviderError, redactSecrets, secretRedactor } from './model-errors.js';
export { BUILT_IN_PRICES, BUILT_IN_PRICES_AS_OF, createPricing, roundUsd } from './pricing.js';
export type { ModelPrice, ModelRate, Pricing } from './pricing.js';
