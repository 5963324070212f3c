// A failed command exits by the kind of its error code (@junction/errors), with the codes of
// its own listed in exit-codes.ts; every code a package declares has an exit code.
import { describe, expect, it } from '@jest/globals';
import { AgentCoreError } from '@junction/agent-core';
import { ERROR_KINDS } from '@junction/errors';
import { StoreError } from '@junction/store';
import { exitCodeFor } from '../src/exit-codes.js';
import { exitCodeOf, KINDS } from './exit-code-of.js';

describe('exit codes by kind', () => {
  it('gives every declared code an exit code from its kind or its own', () => {
    for (const [code, kind] of Object.entries(KINDS)) {
      expect([code, ERROR_KINDS.includes(kind), exitCodeOf(code) > 0]).toEqual([code, true, true]);
    }
  });

  it('answers as docs/cli.md says', () => {
    const expected: Record<string, number> = {
      LISTEN_FAILED: 1,
      MAX_STEPS_REACHED: 1,
      INVALID_USAGE: 2,
      INVALID_INPUT: 2,
      SCHEDULE_TARGET_AMBIGUOUS: 2,
      WORKFLOW_AMBIGUOUS: 2,
      APPROVER_NOT_ALLOWED: 2,
      CONFIG_INVALID: 3,
      CONFIG_UNREADABLE: 3,
      TEMPLATE_VARIABLE_MISSING: 3,
      MODEL_API_KEY_MISSING: 3,
      SETTING_INVALID: 3,
      AGENT_NOT_FOUND: 4,
      TOOL_NOT_FOUND: 4,
      AGENT_EXISTS: 5,
      IDEMPOTENCY_KEY_REUSED: 5,
      PORT_IN_USE: 5,
      STORE_OPEN_FAILED: 6,
      STORE_BUSY: 6,
      COMMAND_NOT_FOUND: 127,
    };
    for (const [code, exit] of Object.entries(expected)) {
      expect([code, exitCodeOf(code)]).toEqual([code, exit]);
    }
  });

  it('reads the kind from the error, and knows the CLI’s own codes without it', () => {
    const err = new AgentCoreError('AGENT_EXISTS', 'm');
    expect(exitCodeFor(err.code, err.kind)).toBe(5);
    const store = new StoreError('STORE_BUSY', 'm');
    expect(exitCodeFor(store.code, store.kind)).toBe(6);
    expect(exitCodeFor('INVALID_USAGE')).toBe(2);
    expect(exitCodeFor('COMMAND_NOT_FOUND')).toBe(127);
    expect(exitCodeFor('NOT_A_CODE_ANY_PACKAGE_DECLARES')).toBe(1);
    expect(exitCodeFor(undefined)).toBe(1);
  });
});
