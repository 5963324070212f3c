import { readFileSync } from 'node:fs';
import { readYaml } from './yaml-text.js';
import type { z } from 'zod';
import { createConfigSchema, listConfigKeys } from './config-schema.js';
import type { Config } from './config-schema.js';
import { applyEnvOverrides } from './env-overrides.js';
import { ConfigError, describeValue } from './errors.js';
import type { JsonValue } from './errors.js';
import { resolvePaths } from './paths.js';
import type { WorkspacePaths } from './paths.js';

/** Where loadConfig looks and which environment it reads. */
export interface LoadConfigOptions {
  /** Workspace paths; default resolvePaths(env). */
  paths?: WorkspacePaths;
  /** Environment for JUNCTION_* and OTEL_* overrides; default process.env. */
  env?: NodeJS.ProcessEnv;
}

interface Problem {
  source: string;
  key: string;
  message: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// `key:` with nothing after it (or a section whose keys are all commented out) means "not set".
function dropNulls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null) continue;
    out[key] = isPlainObject(child) ? dropNulls(child) : child;
  }
  return out;
}

function keyOf(path: readonly PropertyKey[]): string {
  let key = '';
  for (const part of path) {
    if (typeof part === 'number') key += `[${part}]`;
    else key += key === '' ? String(part) : `.${String(part)}`;
  }
  return key;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        previous + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      previous = current;
    }
  }
  return row[b.length] as number;
}

function suggestion(unknownKey: string, knownKeys: readonly string[]): string {
  const parent = unknownKey.includes('.')
    ? unknownKey.slice(0, unknownKey.lastIndexOf('.') + 1)
    : '';
  const name = unknownKey.slice(parent.length);
  const siblings = new Set<string>();
  for (const known of knownKeys) {
    if (!known.startsWith(parent)) continue;
    siblings.add(known.slice(parent.length).split('.')[0] as string);
  }
  let best: string | undefined;
  let bestDistance = 3;
  for (const sibling of siblings) {
    const d = distance(name, sibling);
    if (d < bestDistance) {
      best = sibling;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : `; did you mean "${parent}${best}"?`;
}

function problemsOf(
  issues: readonly z.core.$ZodIssue[],
  file: string,
  applied: Map<string, string>,
  knownKeys: readonly string[],
): Problem[] {
  const sourceOf = (key: string): string => {
    for (const [overridden, variable] of applied) {
      if (
        key === overridden ||
        key.startsWith(`${overridden}.`) ||
        key.startsWith(`${overridden}[`)
      ) {
        return `environment variable ${variable}`;
      }
    }
    return file;
  };
  const problems: Problem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const name of issue.keys) {
        const key = keyOf([...issue.path, name]);
        problems.push({
          source: file,
          key,
          message: `unknown key (check the spelling${suggestion(key, knownKeys)})`,
        });
      }
      continue;
    }
    const key = keyOf(issue.path);
    problems.push({
      source: sourceOf(key),
      key: key === '' ? '(top level)' : key,
      message: issue.message,
    });
  }
  return problems;
}

function invalid(problems: Problem[], file: string): ConfigError {
  const lines = problems.map((p) =>
    p.source === file
      ? `  ${file}: ${p.key}: ${p.message}`
      : `  ${p.source} (${p.key}): ${p.message}`,
  );
  const details: Record<string, JsonValue> = {
    file,
    problems: problems.map((p) => ({ source: p.source, key: p.key, message: p.message })),
  };
  return new ConfigError(
    'CONFIG_INVALID',
    `Invalid configuration:\n${lines.join('\n')}\nFix the values above; docs/configuration.md describes every key.`,
    details,
  );
}

function readRaw(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `Cannot read ${file}: ${(error as Error).message}. Check that it is a readable file, or remove it to use the defaults.`,
      { file },
      { cause: error },
    );
  }
  const read = readYaml(text);
  if (!read.ok) {
    const { reason, line, column, cause } = read.problem;
    const at = line === undefined ? '' : ` at line ${line}, column ${column}`;
    throw new ConfigError(
      'CONFIG_INVALID',
      `Invalid YAML in ${file}${at}: ${reason}. Fix the file (or remove it to use the defaults).`,
      { file, line: line ?? null, column: column ?? null },
      { cause: cause },
    );
  }
  const value = read.value;
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) {
    throw invalid(
      [
        {
          source: file,
          key: '(top level)',
          message: `expected a map of keys, got ${describeValue(value)}`,
        },
      ],
      file,
    );
  }
  return dropNulls(value);
}

/** Reads config.yaml (defaults when absent), applies JUNCTION_* / OTEL_* overrides, validates, and returns the typed config. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const paths = options.paths ?? resolvePaths(env);
  const file = paths.configFile;
  const raw = readRaw(file);
  // Spec §7: coding tools need a `coding` section in the configuration; writing one turns them on.
  const coding = raw.coding;
  if (isPlainObject(coding) && !('enabled' in coding)) coding.enabled = true;
  const applied = applyEnvOverrides(raw, env);
  const schema = createConfigSchema(paths);
  const result = schema.safeParse(raw);
  if (!result.success) {
    const knownKeys = listConfigKeys(schema).map((k) => k.key);
    throw invalid(problemsOf(result.error.issues, file, applied, knownKeys), file);
  }
  return result.data;
}
