// MCP tool errors by kind (@junction/errors): the server's fault when it cannot answer now or
// failed itself, the caller's otherwise; the code and message are kept either way.
import { describe, expect, it } from '@jest/globals';
import { AgentCoreError } from '@junction/agent-core';
import { ConfigTemplatesError } from '@junction/config-templates';
import { ScheduleError } from '@junction/scheduler';
import { StoreError } from '@junction/store';
import { McpServerError, toolFailure } from '../src/errors.js';

describe('MCP tool errors by kind', () => {
  it('makes unavailable and internal errors the server’s fault, the rest the caller’s', () => {
    const cases: Array<[Error, string]> = [
      [new StoreError('STORE_BUSY', 'm'), 'server'],
      [new StoreError('STORE_QUERY_FAILED', 'm'), 'server'],
      [new ScheduleError('SCHEDULER_UNAVAILABLE', 'm'), 'server'],
      [new AgentCoreError('MCP_CONNECT_FAILED', 'm'), 'server'],
      [new ConfigTemplatesError('FILE_UNREADABLE', 'm'), 'server'],
      [new Error('anything else'), 'server'],
      [new AgentCoreError('AGENT_NOT_FOUND', 'm'), 'caller'],
      [new AgentCoreError('MODEL_API_KEY_MISSING', 'm'), 'caller'],
      [new McpServerError('ARGUMENT_INVALID', 'm'), 'caller'],
      [new McpServerError('WORKFLOWS_UNAVAILABLE', 'm'), 'caller'],
      [new StoreError('CONFLICT', 'm'), 'caller'],
    ];
    for (const [err, fault] of cases) {
      const failure = toolFailure(err);
      expect([err.message, failure.fault]).toEqual([err.message, fault]);
      expect(failure.code).toBe((err as { code?: string }).code ?? 'INTERNAL');
    }
  });
});
