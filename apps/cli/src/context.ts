// Builds what a command needs, once, from the environment. Heavy packages are imported
// here lazily so `junction --help` never loads the database driver or the SDKs.
import type { Config, WorkspacePaths, Workspace } from '@junction/config-templates';
import type { Store } from '@junction/store';

export interface CliContext {
  paths: WorkspacePaths;
  config: Config;
  workspace: Workspace;
  /** Opens the store on first use; later calls return the same one. */
  store(): Promise<Store>;
  close(): Promise<void>;
}

/** Resolves the workspace paths and the config; the store is opened on demand. */
export async function createContext(env: NodeJS.ProcessEnv = process.env): Promise<CliContext> {
  const ct = await import('@junction/config-templates');
  const paths = ct.resolvePaths(env);
  const config = ct.loadConfig({ paths, env });
  const workspace = new ct.Workspace(paths);
  let opened: Store | undefined;
  return {
    paths,
    config,
    workspace,
    async store(): Promise<Store> {
      if (!opened) {
        const { openStore } = await import('@junction/store');
        opened = await openStore({ url: config.database_url ?? paths.databaseFile });
      }
      return opened;
    },
    async close(): Promise<void> {
      await opened?.close();
    },
  };
}
