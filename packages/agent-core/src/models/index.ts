// Which model an agent uses (model-factory.ts), whether it can run (model-check.ts), and what
// a provider's failure means (model-errors.ts).
export { createModelCheck } from './model-check.js';
export type { ModelCheck } from './model-check.js';
export { modelSecrets, PROVIDER_KEY_ENV, PROVIDERS, resolveModel } from './model-factory.js';
export type { ModelSettings } from './model-factory.js';
export { classifyProviderError, redactSecrets, secretRedactor } from './model-errors.js';
