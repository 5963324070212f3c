// Whether an agent's model can run (model-check.ts), where a provider's key comes from
// (model-factory.ts), keeping keys out of text (model-errors.ts), what tokens cost (pricing.ts).
export { createModelCheck } from './model-check.js';
export type { ModelCheck } from './model-check.js';
export { modelSecrets, PROVIDER_KEY_ENV } from './model-factory.js';
export type { ModelSettings } from './model-factory.js';
export { secretRedactor } from './model-errors.js';
export { createPricing } from './pricing.js';
export type { ModelPrice, ModelRate, Pricing } from './pricing.js';
