// Regression (issue 13, item 11): `variables: {"__proto__": …}` was accepted and stored as {}.
import { describe, expect, it } from '@jest/globals';
import { isAgentCoreError } from '../src/errors.js';
import { parseRunRequest, runRequestSchema } from '../src/runs/run-request.js';

const withProto = (value: string): unknown =>
  JSON.parse(
    `{"agent_id": 1, "task": "t", "source": "api", "variables": {"__proto__": ${value}, "ok": "v"}}`,
  );

describe('a variable named __proto__', () => {
  it('is refused by the run door, naming the key, whatever its value', () => {
    for (const value of ['"x"', '{"polluted": "yes"}', '1']) {
      let caught: unknown;
      try {
        parseRunRequest(withProto(value) as Parameters<typeof parseRunRequest>[0]);
      } catch (err) {
        caught = err;
      }
      expect(isAgentCoreError(caught, 'RUN_REQUEST_INVALID')).toBe(true);
      expect((caught as Error).message).toContain(
        'variables may not have a variable named "__proto__"',
      );
      expect((caught as { details: { field: string } }).details.field).toBe('variables.__proto__');
    }
    // Nothing reached any prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a variable named constructor by name too, not as "not an object"', () => {
    let caught: unknown;
    try {
      parseRunRequest(
        JSON.parse(
          '{"agent_id": 1, "task": "t", "source": "api", "variables": {"constructor": "x"}}',
        ) as Parameters<typeof parseRunRequest>[0],
      );
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).message).toContain(
      'variables may not have a variable named "constructor"',
    );
    expect((caught as Error).message).not.toContain('must be an object');
  });

  it('leaves ordinary variables as they are', () => {
    const parsed = runRequestSchema.parse({
      agent_id: 1,
      task: 't',
      source: 'api',
      variables: { city: 'Paris', toString: 'fine' },
    });
    expect(parsed.variables).toEqual({ city: 'Paris', toString: 'fine' });
  });
});
