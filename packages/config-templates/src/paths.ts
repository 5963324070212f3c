import os from 'node:os';
import path from 'node:path';

/** Where the workspace lives on disk. */
export interface WorkspacePaths {
  /** `$XDG_CONFIG_HOME/junction`, or `~/.config/junction`. */
  configHome: string;
  /** `<configHome>/config.yaml`. */
  configFile: string;
  /** `<configHome>/junction.db`, the default embedded store. */
  databaseFile: string;
  /** `<configHome>/environments`. */
  environmentsDir: string;
  /** `<configHome>/logs`. */
  logsDir: string;
}

/** Resolves the workspace folder from XDG_CONFIG_HOME (absolute only, per the XDG spec) or HOME. */
export function resolvePaths(env: NodeJS.ProcessEnv = process.env): WorkspacePaths {
  const xdg = env.XDG_CONFIG_HOME;
  const base =
    xdg !== undefined && xdg !== '' && path.isAbsolute(xdg)
      ? xdg
      : path.join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir(), '.config');
  const configHome = path.join(base, 'junction');
  return {
    configHome,
    configFile: path.join(configHome, 'config.yaml'),
    databaseFile: path.join(configHome, 'junction.db'),
    environmentsDir: path.join(configHome, 'environments'),
    logsDir: path.join(configHome, 'logs'),
  };
}
