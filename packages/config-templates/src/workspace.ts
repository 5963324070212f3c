// The workspace folder: config.yaml and environments/<env>/{variables.yml, *.json, agents/, workflows/}.
// Files here belong to the user: nothing in this class overwrites or deletes one unless asked to.
import { constants } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { readYaml } from './yaml-text.js';
import { writeFileAtomic } from './atomic-write.js';
import { defaultConfigYaml } from './default-config.js';
import { WorkspaceError } from './errors.js';
import { assertValidName, isValidName } from './names.js';
import type { WorkspacePaths } from './paths.js';
import { promptFileText } from './prompt-file.js';

/** The environment `junction init` creates. */
export const DEFAULT_ENVIRONMENT = 'default';

/** The endings of workflow files in an environment's `workflows/` folder. */
export const WORKFLOW_FILE_SUFFIXES = [
  '.workflow.yaml',
  '.workflow.yml',
  '.workflow.json',
] as const;

/** What init() found and made; absolute paths. */
export interface InitResult {
  created: string[];
  existing: string[];
}

/** Options of copyAgentFile. */
export interface CopyAgentOptions {
  /** Replace an agent file of the same name in the target environment. Default false. */
  overwrite?: boolean;
}

const VARIABLES_HEADER =
  "# Values for the {{ .NAME }} placeholders of this environment's *.json MCP templates.\n" +
  '# One NAME: value per line. A process environment variable of the same name overrides\n' +
  '# a value here (system variables such as PATH and HOME never do).\n';

/** The third-party tool server of the example environment, pinned so a sync is repeatable. */
export const EXAMPLE_FILESYSTEM_SERVER = '@modelcontextprotocol/server-filesystem@2026.8.31';

const EXAMPLE_TEMPLATE = `${JSON.stringify(
  {
    description:
      'Example: files under FILESYSTEM_ROOT (see variables.yml), served by the MCP filesystem server.',
    mcpServers: {
      filesystem: {
        command: 'npx',
        args: ['-y', EXAMPLE_FILESYSTEM_SERVER, '{{ .FILESYSTEM_ROOT }}'],
      },
    },
  },
  null,
  2,
)}\n`;

/** The example agent `init` writes (made when asked: every command loads this module). */
const exampleAgent = (): string =>
  promptFileText({
    name: 'assistant',
    description: 'A general-purpose assistant. Edit this file to make it your own.',
    maxSteps: 10,
    tools: ['list_directory', 'read_text_file'],
    prompt:
      '{{role "system"}}\n' +
      'You are {{agentName}}, a careful and concise assistant working in the "{{environment}}" environment.\n' +
      'Use the tools you have when they help; say so plainly when you cannot do something.\n' +
      '\n' +
      '{{role "user"}}\n' +
      '{{userInput}}',
  });

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function exists(target: string): Promise<boolean> {
  try {
    await stat(target);
    return true;
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false;
    throw error;
  }
}

async function listFiles(dir: string, suffix: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix) && !entry.name.startsWith('.'))
    .map((entry) => path.join(dir, entry.name))
    .sort();
}

/** The config workspace on disk: environments, variables, templates and agent files. */
export class Workspace {
  readonly paths: WorkspacePaths;

  constructor(paths: WorkspacePaths) {
    this.paths = paths;
  }

  /** Creates the config folder, config.yaml, the default environment with an example MCP template and agent; never overwrites, safe to repeat. */
  async init(): Promise<InitResult> {
    const result: InitResult = { created: [], existing: [] };
    // Owner only: the workspace holds keys (config.yaml, variables.yml) and the store.
    const makeDir = async (dir: string): Promise<void> => {
      try {
        await mkdir(dir, { mode: 0o700 });
        result.created.push(dir);
      } catch (error) {
        if (errnoOf(error) !== 'EEXIST') throw error;
        result.existing.push(dir);
      }
    };
    const makeFile = async (file: string, text: string): Promise<void> => {
      try {
        await writeFile(file, text, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
        result.created.push(file);
      } catch (error) {
        if (errnoOf(error) !== 'EEXIST') throw error;
        result.existing.push(file);
      }
    };
    await mkdir(path.dirname(this.paths.configHome), { recursive: true });
    await makeDir(this.paths.configHome);
    await makeFile(this.paths.configFile, defaultConfigYaml(this.paths));
    await makeDir(this.paths.environmentsDir);
    const envDir = this.environmentDir(DEFAULT_ENVIRONMENT);
    await makeDir(envDir);
    await makeDir(path.join(envDir, 'agents'));
    await makeDir(path.join(envDir, 'workflows'));
    const files = path.join(this.paths.configHome, 'files');
    await makeDir(files);
    await makeFile(
      this.variablesFile(DEFAULT_ENVIRONMENT),
      `${VARIABLES_HEADER}FILESYSTEM_ROOT: ${JSON.stringify(files)}\n`,
    );
    await makeFile(path.join(envDir, 'filesystem.json'), EXAMPLE_TEMPLATE);
    await makeFile(this.agentFile(DEFAULT_ENVIRONMENT, 'assistant'), exampleAgent());
    return result;
  }

  /** The folder of an environment (validates the name; does not check that it exists). */
  environmentDir(env: string): string {
    assertValidName('environment', env);
    return path.join(this.paths.environmentsDir, env);
  }

  /** The variables.yml of an environment. */
  variablesFile(env: string): string {
    return path.join(this.environmentDir(env), 'variables.yml');
  }

  /** The prompt file of an agent in an environment. */
  agentFile(env: string, agent: string): string {
    assertValidName('agent', agent);
    return path.join(this.environmentDir(env), 'agents', `${agent}.prompt`);
  }

  /** Names of the environments (folders under environments/), sorted. */
  async listEnvironments(): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.paths.environmentsDir, { withFileTypes: true });
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return [];
      throw error;
    }
    return entries
      .filter((entry) => entry.isDirectory() && isValidName(entry.name))
      .map((entry) => entry.name)
      .sort();
  }

  /** True when the environment's folder exists. */
  async hasEnvironment(env: string): Promise<boolean> {
    const dir = this.environmentDir(env);
    try {
      return (await stat(dir)).isDirectory();
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return false;
      throw error;
    }
  }

  private async requireEnvironment(env: string): Promise<string> {
    if (await this.hasEnvironment(env)) return this.environmentDir(env);
    const known = await this.listEnvironments();
    throw new WorkspaceError(
      'ENVIRONMENT_NOT_FOUND',
      `Environment "${env}" does not exist (known: ${known.length === 0 ? 'none; run `junction init`' : known.join(', ')}). Check the name or create it first.`,
      { environment: env, known },
    );
  }

  /** Removes an environment's folder and everything in it; false when there was none. */
  async removeEnvironment(env: string): Promise<boolean> {
    const dir = this.environmentDir(env);
    if (!(await this.hasEnvironment(env))) return false;
    await rm(dir, { recursive: true, force: true });
    return true;
  }

  /** Creates environments/<name>/ with agents/, workflows/ and an empty variables.yml; refuses an existing or invalid name. */
  async createEnvironment(env: string): Promise<string> {
    const dir = this.environmentDir(env);
    await mkdir(this.paths.environmentsDir, { recursive: true, mode: 0o700 });
    try {
      await mkdir(dir, { mode: 0o700 });
    } catch (error) {
      if (errnoOf(error) === 'EEXIST') {
        throw new WorkspaceError(
          'ENVIRONMENT_EXISTS',
          `Environment "${env}" already exists at ${dir}. Choose another name.`,
          { environment: env, path: dir },
          { cause: error },
        );
      }
      throw error;
    }
    await mkdir(path.join(dir, 'agents'), { mode: 0o700 });
    await mkdir(path.join(dir, 'workflows'), { mode: 0o700 });
    await writeFile(this.variablesFile(env), VARIABLES_HEADER, {
      encoding: 'utf8',
      flag: 'wx',
      mode: 0o600,
    });
    return dir;
  }

  /** Reads variables.yml as NAME → string (YAML scalars are kept as written: 1.10 stays "1.10"); a missing file is empty. */
  async readVariables(env: string): Promise<Record<string, string>> {
    await this.requireEnvironment(env);
    const file = this.variablesFile(env);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return {};
      throw new WorkspaceError(
        'FILE_UNREADABLE',
        `Cannot read ${file}: ${(error as Error).message}.`,
        { path: file },
        { cause: error },
      );
    }
    // The failsafe schema reads every scalar as the string written, so versions, ids and
    // zip codes keep their leading zeros and trailing digits.
    const read = readYaml(text, { schema: 'failsafe' });
    if (!read.ok) {
      const { reason, line, column, cause } = read.problem;
      throw new WorkspaceError(
        'VARIABLES_INVALID',
        `Invalid YAML in ${file}${line === undefined ? '' : ` at line ${line}, column ${column}`}: ${reason}. Write one NAME: value per line.`,
        { path: file, line: line ?? null },
        { cause: cause },
      );
    }
    const value = read.value;
    if (value === null || value === undefined || value === '') return {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new WorkspaceError(
        'VARIABLES_INVALID',
        `${file} must be a map of NAME: value lines. Write one NAME: value per line.`,
        { path: file },
      );
    }
    const variables: Record<string, string> = {};
    for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
      if (typeof entry !== 'string') {
        throw new WorkspaceError(
          'VARIABLES_INVALID',
          `${file}: variable ${name} must be a single value, not a list or map. Quote it if it is JSON text.`,
          { path: file, variable: name },
        );
      }
      variables[name] = entry;
    }
    return variables;
  }

  /** Replaces variables.yml atomically (temp file + rename) with the given NAME → value map. */
  async writeVariables(env: string, variables: Readonly<Record<string, string>>): Promise<void> {
    await this.requireEnvironment(env);
    for (const [name, value] of Object.entries(variables)) {
      if (name.trim() === '' || typeof value !== 'string') {
        throw new WorkspaceError(
          'VARIABLES_INVALID',
          `Variable ${JSON.stringify(name)} needs a non-empty name and a string value.`,
          { variable: name },
        );
      }
    }
    const body =
      Object.keys(variables).length === 0 ? '' : stringify({ ...variables }, { lineWidth: 0 });
    await writeFileAtomic(this.variablesFile(env), `${VARIABLES_HEADER}${body}`);
  }

  /** The MCP template files (`*.json`) of an environment, sorted. */
  async listTemplateFiles(env: string): Promise<string[]> {
    return listFiles(await this.requireEnvironment(env), '.json');
  }

  /** The agent files (`agents/*.prompt`) of an environment, sorted. */
  async listPromptFiles(env: string): Promise<string[]> {
    return listFiles(path.join(await this.requireEnvironment(env), 'agents'), '.prompt');
  }

  /** The workflow files (`workflows/*.workflow.yaml`, `.yml`, `.json`) of an environment, sorted. */
  async listWorkflowFiles(env: string): Promise<string[]> {
    const dir = path.join(await this.requireEnvironment(env), 'workflows');
    const files = await Promise.all(WORKFLOW_FILE_SUFFIXES.map((suffix) => listFiles(dir, suffix)));
    return files.flat().sort();
  }

  /** Copies agents/<name>.prompt from one environment to another; returns the new file's path. */
  async copyAgentFile(
    name: string,
    from: string,
    to: string,
    options: CopyAgentOptions = {},
  ): Promise<string> {
    assertValidName('agent', name);
    await this.requireEnvironment(from);
    await this.requireEnvironment(to);
    const source = this.agentFile(from, name);
    const target = this.agentFile(to, name);
    if (!(await exists(source))) {
      throw new WorkspaceError(
        'AGENT_NOT_FOUND',
        `Agent "${name}" has no prompt file in environment "${from}" (${source}). Check the name.`,
        { agent: name, environment: from, path: source },
      );
    }
    await mkdir(path.dirname(target), { recursive: true });
    try {
      if (options.overwrite === true) {
        // Through a temp file and a rename, so a reader of the target never sees half a file.
        const temp = path.join(
          path.dirname(target),
          `.${name}.prompt.${process.pid}.${Date.now()}.tmp`,
        );
        await copyFile(source, temp, constants.COPYFILE_EXCL);
        await rename(temp, target).catch(async (error: unknown) => {
          await rm(temp, { force: true });
          throw error;
        });
      } else {
        await copyFile(source, target, constants.COPYFILE_EXCL);
      }
    } catch (error) {
      if (errnoOf(error) === 'EEXIST') {
        throw new WorkspaceError(
          'AGENT_FILE_EXISTS',
          `Agent "${name}" already exists in environment "${to}" (${target}). Pass overwrite to replace it.`,
          { agent: name, environment: to, path: target },
          { cause: error },
        );
      }
      throw error;
    }
    return target;
  }
}
