/** Codes of the coding bus's failures. */
export const CODING_BUS_ERROR_CODES = [
  'NATS_SERVER_MISSING',
  'NATS_SERVER_FAILED',
  'NATS_UNREACHABLE',
] as const;

export type CodingBusErrorCode = (typeof CODING_BUS_ERROR_CODES)[number];

/** A coding-bus failure: a stable code, a message that says what to do, JSON-safe details. */
export class CodingBusError extends Error {
  readonly code: CodingBusErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: CodingBusErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'CodingBusError';
    this.code = code;
    this.details = details;
  }
}
