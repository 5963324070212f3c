// `{{ .NAME }}` placeholders in MCP server templates. Templates are JSON, and a value usually lands
// inside a JSON string, where a quote or backslash in it would break the file (or inject keys), so
// the renderer tracks whether each placeholder sits inside a string literal and escapes for JSON
// there; elsewhere (`"port": {{ .PORT }}`) the value goes in as written.
import { TemplateError } from './errors.js';

/** Process variables that never override variables.yml: they describe the shell, not the environment. */
export const SYSTEM_ENV_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'PWD',
  'OLDPWD',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'COLORTERM',
  'HOSTNAME',
  'HOST',
  'SHLVL',
  '_',
  'MAIL',
  'DISPLAY',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'TZ',
  'NODE_OPTIONS',
  'INIT_CWD',
];

/** Prefixes of system variables (XDG_CONFIG_HOME, LC_ALL, SSH_AUTH_SOCK, npm_config_*, ...). */
export const SYSTEM_ENV_PREFIXES: readonly string[] = [
  'XDG_',
  'LC_',
  'SSH_',
  'npm_',
  'PNPM_',
  'DBUS_',
  'WAYLAND_',
];

const SYSTEM_SET = new Set(SYSTEM_ENV_VARIABLES);

/** True for a process variable that must not override a template variable (PATH, HOME, XDG_*, ...). */
export function isSystemEnvVariable(name: string): boolean {
  return SYSTEM_SET.has(name) || SYSTEM_ENV_PREFIXES.some((prefix) => name.startsWith(prefix));
}

const PLACEHOLDER = /\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/y;

/** Where a template's variables come from, and the file to name in errors. */
export interface RenderTemplateOptions {
  /** The environment's variables.yml. */
  variables: Readonly<Record<string, string>>;
  /** The process environment; overrides `variables` except for system variables. Default: none. */
  processEnv?: NodeJS.ProcessEnv;
  /** The template's path, named in errors. */
  file: string;
}

interface Scan {
  text: string;
  missing: string[];
}

function resolve(name: string, options: RenderTemplateOptions): string | undefined {
  const fromProcess = options.processEnv?.[name];
  if (fromProcess !== undefined && !isSystemEnvVariable(name)) return fromProcess;
  return Object.prototype.hasOwnProperty.call(options.variables, name)
    ? options.variables[name]
    : undefined;
}

function escapeForJsonString(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

function scan(text: string, lookup: (name: string) => string | undefined): Scan {
  let out = '';
  const missing: string[] = [];
  let inString = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '{' && text[i + 1] === '{') {
      PLACEHOLDER.lastIndex = i;
      const match = PLACEHOLDER.exec(text);
      if (match !== null) {
        const name = match[1] as string;
        const value = lookup(name);
        if (value === undefined) {
          if (!missing.includes(name)) missing.push(name);
        } else {
          out += inString ? escapeForJsonString(value) : value;
        }
        i += match[0].length;
        continue;
      }
    }
    if (inString && char === '\\') {
      out += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (char === '"') inString = !inString;
    out += char;
    i++;
  }
  return { text: out, missing };
}

/** The placeholder names a template uses, in order of first use. */
export function templateVariables(text: string): string[] {
  return scan(text, () => undefined).missing;
}

/** Fills `{{ .NAME }}` placeholders (JSON-escaped inside strings, raw elsewhere); throws TEMPLATE_VARIABLE_MISSING listing every missing name. */
export function renderTemplate(text: string, options: RenderTemplateOptions): string {
  const result = scan(text, (name) => resolve(name, options));
  if (result.missing.length > 0) {
    throw new TemplateError(
      'TEMPLATE_VARIABLE_MISSING',
      `Template ${options.file} uses variables that are not set: ${result.missing.join(', ')}. ` +
        `Add them to the environment's variables.yml (or set them in the process environment) and sync again.`,
      { missing: [{ file: options.file, variables: result.missing }] },
    );
  }
  return result.text;
}
