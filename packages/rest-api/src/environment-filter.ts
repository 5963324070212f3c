// The `environment` / `environment_id` filters shared by the agent and run lists.
import { AgentCoreError } from '@junction/agent-core';
import type { Store } from '@junction/store';
import { RestApiError } from './errors.js';

/**
 * The id of the environment the filters name, or undefined without filters. A name or id
 * that matches no environment is ENVIRONMENT_NOT_FOUND; two filters naming different
 * environments are INVALID_PARAMETER.
 */
export async function environmentFilter(
  store: Pick<Store, 'environments'>,
  filters: { environment?: string | undefined; environment_id?: number | undefined },
): Promise<number | undefined> {
  let byName: number | undefined;
  if (filters.environment !== undefined) {
    const env = await store.environments.getByName(filters.environment);
    if (!env) {
      throw new AgentCoreError(
        'ENVIRONMENT_NOT_FOUND',
        `No environment is called "${filters.environment}". GET /api/v1/environments lists them.`,
        { field: 'environment', environment: filters.environment },
      );
    }
    byName = env.id;
  }
  if (filters.environment_id === undefined) return byName;
  const env = await store.environments.get(filters.environment_id);
  if (!env) {
    throw new AgentCoreError(
      'ENVIRONMENT_NOT_FOUND',
      `No environment has id ${filters.environment_id}. GET /api/v1/environments lists them.`,
      { field: 'environment_id', environment_id: filters.environment_id },
    );
  }
  if (byName !== undefined && byName !== env.id) {
    throw new RestApiError(
      'INVALID_PARAMETER',
      `environment "${filters.environment}" and environment_id ${filters.environment_id} name different environments; give one of them.`,
      { field: 'environment_id' },
    );
  }
  return env.id;
}
