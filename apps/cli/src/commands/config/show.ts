import { readFileSync } from 'node:fs';
import type { YamlResult } from '@junction/config-templates';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

/** Where an effective setting came from. */
export type SettingSource = 'file' | 'env' | 'default';

export interface SettingView {
  /** A config.yaml key (`api.port`) or, for what is read outside config.yaml, a variable. */
  key: string;
  /** The effective value; a secret is only `[set]` or `[not set]`, an unset setting null. */
  value: unknown;
  source: SettingSource;
}

/** Variables Junction reads besides config.yaml's overrides: the REST/MCP key and the model providers'. */
const OTHER_VARIABLES = [
  'JUNCTION_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'OPENAI_COMPATIBLE_API_KEY',
  'OPENAI_COMPATIBLE_BASE_URL',
] as const;

/**
 * Whether a setting holds a secret, by the rule the logs' redaction uses (telemetry's
 * isSecretKey: `ai_api_key`, `coding.git.token`, but not `token_url` or `token_env_var`,
 * which say where a secret is), plus `api.keys` and the OTLP headers (Authorization).
 */
function isSecret(key: string, isSecretKey: (name: string) => boolean): boolean {
  if (key === 'api.keys' || key === 'telemetry.headers') return true;
  return isSecretKey(key.slice(key.lastIndexOf('.') + 1));
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0)
  );
}

/** The value as the table shows it: text as written (empty as ""), anything else as JSON, unset as `-`. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'string' && value !== '' ? value : JSON.stringify(value);
}

/** config.yaml as written, read as the loader reads it; empty when there is none. */
function readWritten(
  file: string,
  readYaml: (text: string) => YamlResult,
): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // The loader has just read it or found none: a file gone since leaves only defaults.
    return {};
  }
  const read = readYaml(text);
  return read.ok && typeof read.value === 'object' && read.value !== null
    ? (read.value as Record<string, unknown>)
    : {};
}

export default class ConfigShow extends JunctionCommand {
  static override description =
    'Show the effective settings and where each comes from: file (config.yaml), env (an environment ' +
    'variable) or default. Keys, tokens, secrets and passwords show only [set] or [not set].';

  static override examples = [
    '<%= config.bin %> config show',
    'JUNCTION_API_PORT=9585 <%= config.bin %> config show --json',
  ];

  static override flags = { ...tableFlags };

  static override enableJsonFlag = true;

  async run(): Promise<{ settings: SettingView[] }> {
    await this.parse(ConfigShow);
    const ct = await import('@junction/config-templates');
    const { collectSecretValues, isSecretKey, redactText } = await import('@junction/telemetry');
    const { formatTable } = await import('../../table.js');
    const { createContext } = await import('../../context.js');
    const env = process.env;
    // Loading first means a broken config.yaml ends here with the loader's own error (exit 3).
    const ctx = await createContext(env);
    try {
      const { config, paths } = ctx;
      const file = readWritten(paths.configFile, ct.readYaml);
      const overrides = new Map(ct.ENV_OVERRIDES.map((o) => [o.key, o.variable]));
      const isSet = (variable: string | undefined): boolean =>
        variable !== undefined && (env[variable] ?? '') !== '';
      const sourceOf = (key: string): SettingSource => {
        if (isSet(overrides.get(key))) return 'env';
        const written = ct.configValueAt(file, key);
        if (written !== undefined && written !== null) return 'file';
        // The loader turns coding tools on when config.yaml has a coding section (spec §7).
        if (key === 'coding.enabled' && typeof file.coding === 'object' && file.coding !== null) {
          return 'file';
        }
        return 'default';
      };
      const settings: SettingView[] = [
        ...ct.listConfigKeys(ct.createConfigSchema(paths)).map(({ key }) => ({
          key,
          value: ct.configValueAt(config, key) ?? null,
          source: sourceOf(key),
        })),
        ...OTHER_VARIABLES.map((variable) => ({
          key: variable,
          value: isSet(variable) ? (env[variable] as string) : null,
          source: isSet(variable) ? ('env' as const) : ('default' as const),
        })),
      ];
      // Secret values never leave: the secret settings themselves, and (in case one is quoted
      // elsewhere, or a URL carries credentials) any of their values inside other settings.
      const secrets = [
        ...collectSecretValues(env),
        ...settings
          .filter((s) => isSecret(s.key, isSecretKey))
          .flatMap((s) => (Array.isArray(s.value) ? s.value : [s.value]))
          .filter((v): v is string => typeof v === 'string'),
      ];
      const shown = settings.map((s) => ({
        ...s,
        value: isSecret(s.key, isSecretKey)
          ? isEmpty(s.value)
            ? '[not set]'
            : '[set]'
          : typeof s.value === 'string'
            ? redactText(s.value, secrets)
            : s.value,
      }));
      if (!this.jsonEnabled()) {
        this.log(
          `config file: ${paths.configFile}${Object.keys(file).length === 0 ? ' (empty or absent: defaults)' : ''}`,
        );
        this.log('');
        this.log(
          formatTable(
            ['SETTING', 'VALUE', 'SOURCE'],
            shown.map((s) => [s.key, cell(s.value), s.source]),
          ),
        );
      }
      return { settings: shown };
    } finally {
      await ctx.close();
    }
  }
}
