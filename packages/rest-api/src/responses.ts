// Answers that many routes document in the same words. A route's own answers stay beside it.
import type { ResponseSpec } from './route-spec.js';

/** 400 INVALID_PARAMETER: `what` says which parameters a route checks. */
export const badParams = (what: string): ResponseSpec => ({
  description: `INVALID_PARAMETER: ${what}; details.field names the parameter`,
  body: 'Error',
});

/** 413: the body is over the limit. */
export const tooLarge: ResponseSpec = {
  description: 'PAYLOAD_TOO_LARGE: the body is over the limit (details.limit_bytes)',
  body: 'Error',
};

/** 415: the body is not JSON. */
export const notJson: ResponseSpec = {
  description: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json (UTF-8)',
  body: 'Error',
};

/** The run door's model check refused (the same answer on every surface). */
export const modelRefused: ResponseSpec = {
  description:
    'The agent cannot run as the server is configured: MODEL_API_KEY_MISSING, MODEL_NOT_CONFIGURED, MODEL_PROVIDER_UNKNOWN, MODEL_BASE_URL_MISSING, AGENT_INVALID (fix the server configuration or the agent file; every surface answers these the same way); DATABASE_UNAVAILABLE',
  body: 'Error',
};

/** 404 of a list filtered by environment. */
export const envNotFound: ResponseSpec = {
  description:
    'ENVIRONMENT_NOT_FOUND: the environment or environment_id filter names no environment',
  body: 'Error',
};
