// Regression (issue 13, items 1 and 12): names with NUL, line breaks or escapes were accepted.
import { describe, expect, it } from '@jest/globals';
import { runRequestSchema } from '../src/runs/run-request.js';

describe('agent and environment names in a run request', () => {
  it('refuse control characters, naming the field', () => {
    for (const [field, value] of [
      ['agent_name', 'assist\u0000ant'],
      ['agent_name', 'a\nb'],
      ['environment', 'prod\u001b[31m'],
    ] as const) {
      const parsed = runRequestSchema.safeParse({ task: 't', source: 'api', [field]: value });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]).toMatchObject({
        path: [field],
        message: `${field} must not contain control characters (line breaks, NUL, escapes)`,
      });
    }
  });

  it('keep ordinary names, Unicode included', () => {
    const parsed = runRequestSchema.parse({ agent_name: 'Zürich-bot', task: 't', source: 'api' });
    expect(parsed.agent_name).toBe('Zürich-bot');
  });
});
