// How runs look on every surface, without the runner: `@junction/agent-core/runs` also loads the
// workers, the model SDKs and the MCP client (and `/models` the AI SDK and OpenTelemetry), which
// a command that only lists runs (`junction runs list`) should not pay for at start. What a run
// cost (pricing) is part of how it looks.
export { runView } from '../runs/run-view.js';
export type { RunView } from '../runs/run-view.js';
export { oneLine, summarizeEvent } from '../runs/event-summary.js';
export { createPricing, roundUsd } from '../models/pricing.js';
export type { Pricing } from '../models/pricing.js';
