// A failed command exits by the kind of its error code (@junction/errors), with the codes of
// its own listed in exit-codes.ts; every code a package declares has an exit code.
import { describe, expect, it } from '@jest/globals';
import { AGENT_CORE_ERRORS } from '@junction/agent-core';
import { CONFIG_TEMPLATES_ERRORS } from '@junction/config-templates';
import { STORE_ERRORS } from '@junction/store';
import { WORKFLOW_ERRORS } from '@junction/workflows';
import { EXIT_CODES, exitCodeFor } from '../src/exit-codes.js';

describe('exit codes by kind', () => {
  it('gives every declared code an exit code', () => {
    for (const code of [
      ...Object.keys(AGENT_CORE_ERRORS),
      ...Object.keys(CONFIG_TEMPLATES_ERRORS),
      ...Object.keys(STORE_ERRORS),
      ...Object.keys(WORKFLOW_ERRORS),
    ]) {
      expect([code, typeof EXIT_CODES[code as keyof typeof EXIT_CODES]]).toEqual([code, 'number']);
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
      expect([code, exitCodeFor(code)]).toEqual([code, exit]);
    }
    expect(exitCodeFor('NOT_A_CODE_ANY_PACKAGE_DECLARES')).toBe(1);
    expect(exitCodeFor(undefined)).toBe(1);
  });
});
