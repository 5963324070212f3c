// The coding section of config.yaml as the coding tools use it: times in milliseconds, the git
// token resolved (from coding.git.token_env_var, or coding.git.token with a warning).
import path from 'node:path';
import type { Config } from '@junction/config-templates';
import type { CodingBackendKind } from './backend.js';
import type { CodingSubjects } from './task-client.js';

export interface CodingSettings {
  /** A coding section is in config.yaml (or coding.enabled is set there). */
  enabled: boolean;
  backend: CodingBackendKind;
  nats: { url: string; serverPath?: string; subjects: CodingSubjects };
  opencodeUrl: string;
  workspaceBasePath: string;
  taskTimeoutMs: number;
  maxAttempts: number;
  git: {
    /** The token, when one is set; a secret. */
    token?: string;
    /** Where it came from, for messages (never the value). */
    tokenSource: string;
    /** Hand it to a bus backend through the key-value bucket, not in the task. */
    fromKv: boolean;
  };
  /** What configuration there is to warn about (a token written in config.yaml). */
  warnings: string[];
}

export function codingSettings(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): CodingSettings {
  const c = config.coding;
  const warnings: string[] = [];
  const fromEnv = env[c.git.token_env_var];
  let token: string | undefined;
  let tokenSource = `environment variable ${c.git.token_env_var} (not set)`;
  if (fromEnv) {
    token = fromEnv;
    tokenSource = `environment variable ${c.git.token_env_var}`;
  } else if (c.git.token) {
    token = c.git.token;
    tokenSource = 'coding.git.token in config.yaml';
    warnings.push(
      `coding.git.token is written in config.yaml; put the token in an environment variable and name it in coding.git.token_env_var (now ${c.git.token_env_var}) instead.`,
    );
  }
  return {
    enabled: c.enabled,
    backend: c.backend,
    nats: {
      url: c.nats.url,
      ...(c.nats.server_path ? { serverPath: c.nats.server_path } : {}),
      subjects: { ...c.nats.subjects },
    },
    opencodeUrl: c.opencode.url.replace(/\/+$/, ''),
    workspaceBasePath: path.resolve(c.workspace_base_path),
    taskTimeoutMs: Math.round(c.task_timeout_min * 60_000),
    maxAttempts: c.max_attempts,
    git: { ...(token ? { token } : {}), tokenSource, fromKv: c.git.token_from_kv },
    warnings,
  };
}
