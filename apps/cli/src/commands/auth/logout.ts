import { JunctionCommand } from '../../base-command.js';

export interface LogoutView {
  removed: boolean;
  file: string;
  /** Whether management.registration_key in config.yaml still connects this station. */
  config_key_set: boolean;
}

export default class AuthLogout extends JunctionCommand {
  static override description =
    'Log out of the management platform: removes the key `junction auth login` stored in the workspace. A management.registration_key in config.yaml is not touched.';

  static override examples = ['<%= config.bin %> auth logout'];

  static override enableJsonFlag = true;

  async run(): Promise<LogoutView> {
    await this.parse(AuthLogout);
    const { createContext } = await import('../../context.js');
    const { loginFile, removeLogin } = await import('@junction/management-client');
    const ctx = await createContext();
    try {
      const file = loginFile(ctx.paths.configHome);
      const removed = removeLogin(ctx.paths.configHome);
      this.log(
        removed
          ? `Logged out: removed the stored key ${file}.`
          : `Not logged in: there is no stored key (${file}).`,
      );
      const configKeySet = ctx.config.management.registration_key !== undefined;
      if (configKeySet) {
        this.log(
          'management.registration_key in config.yaml (or JUNCTION_MANAGEMENT_REGISTRATION_KEY) is still set and still connects this station.',
        );
      } else if (removed && ctx.config.management.enabled) {
        this.log('A running `junction serve` keeps its connection until it restarts.');
      }
      return { removed, file, config_key_set: configKeySet };
    } finally {
      await ctx.close();
    }
  }
}
