import type { Agent } from '@junction/store';
import { resolveModel, type ModelSettings } from './model-factory.js';

/** Throws the coded reason (MODEL_API_KEY_MISSING, MODEL_PROVIDER_UNKNOWN, …) an agent's model cannot run. */
export type ModelCheck = (agent: Pick<Agent, 'name' | 'model'>) => void;

/**
 * The check every app runs before a run is written: provider known, key and URL present.
 * Settings and environment are fixed for the check's life, so each model's verdict is worked
 * out once (building a provider client on every request would cost the hot path).
 */
export function createModelCheck(settings: ModelSettings, env: NodeJS.ProcessEnv): ModelCheck {
  const verdicts = new Map<string, unknown>();
  return (agent) => {
    const key = agent.model ?? '';
    if (!verdicts.has(key)) {
      let verdict: unknown = null;
      try {
        resolveModel(agent.model ?? undefined, settings, env);
      } catch (err) {
        verdict = err;
      }
      if (verdicts.size >= 1000) verdicts.clear();
      verdicts.set(key, verdict);
    }
    const verdict = verdicts.get(key);
    if (verdict !== null) throw verdict;
  };
}
