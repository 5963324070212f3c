import { stringify } from 'yaml';
import { DERIVED_CONFIG_KEYS, createConfigSchema, listConfigKeys } from './config-schema.js';
import { ENV_OVERRIDES } from './env-overrides.js';
import { resolvePaths } from './paths.js';
import type { WorkspacePaths } from './paths.js';

/** The value at a dotted config key (`api.port`) of a parsed config or file, or undefined. */
export function configValueAt(root: unknown, key: string): unknown {
  let node = root;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function yamlValue(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value) && value.length === 0) return ' []';
  if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  )
    return ' {}';
  return ` ${stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd()}`;
}

/** The commented config.yaml `junction init` writes: every key, its default, its env override; nothing set. */
export function defaultConfigYaml(paths: WorkspacePaths = resolvePaths()): string {
  const schema = createConfigSchema(paths);
  const defaults = schema.parse({});
  const envOf = new Map(ENV_OVERRIDES.map((o) => [o.key, o.variable]));
  const lines: string[] = [
    '# Junction configuration.',
    '#',
    '# Every setting is optional: the commented lines below show the defaults. To change one,',
    '# remove the leading "# " from its line and from the line of each section above it.',
    '# An empty value (key with nothing after the colon) means "not set". Unknown keys are',
    '# rejected, so a misspelt key is reported instead of silently ignored.',
    '# Environment variables (JUNCTION_*, OTEL_*) override this file; docs/configuration.md',
    '# describes every key.',
  ];
  const openSections: string[] = [];
  for (const { key, description } of listConfigKeys(schema)) {
    const parts = key.split('.');
    const leaf = parts.pop() as string;
    let shared = 0;
    while (shared < parts.length && openSections[shared] === parts[shared]) shared++;
    openSections.length = shared;
    if (parts.length === 0 || shared === 0) lines.push('');
    for (let depth = shared; depth < parts.length; depth++) {
      lines.push(`# ${'  '.repeat(depth)}${parts[depth] as string}:`);
      openSections.push(parts[depth] as string);
    }
    const indent = '  '.repeat(parts.length);
    const variable = envOf.get(key);
    const note = variable === undefined ? description : `${description} Env: ${variable}.`;
    lines.push(parts.length === 0 ? `# ${note}` : `# ${indent}# ${note}`);
    const shown = DERIVED_CONFIG_KEYS.includes(key) ? undefined : configValueAt(defaults, key);
    lines.push(`# ${indent}${leaf}:${yamlValue(shown)}`);
  }
  return `${lines.join('\n')}\n`;
}
