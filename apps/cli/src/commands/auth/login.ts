import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export interface LoginView {
  platform: string;
  organization: string | null;
  file: string;
  /** Whether management.registration_key in config.yaml is set (it wins over the stored key). */
  config_key_wins: boolean;
}

export default class AuthLogin extends JunctionCommand {
  static override description =
    'Log in to the management platform: checks a platform API key against it (a registration over the management channel) and stores the key in the workspace, readable only by you (0600). The key is asked for without echo; --api-key or stdin serve scripts. A management.registration_key in config.yaml wins over the stored key.';

  static override examples = [
    '<%= config.bin %> auth login',
    'printf %s "$PLATFORM_KEY" | <%= config.bin %> auth login',
    '<%= config.bin %> auth login --api-key "$PLATFORM_KEY" --endpoint platform.example.com',
  ];

  static override flags = {
    'api-key': Flags.string({
      description:
        'the platform API key (prefer the prompt or stdin: a flag shows in the process list and shell history)',
    }),
    endpoint: Flags.string({
      description:
        'the platform management channel, host[:port] (default management.endpoint, else <host of management.base_url>:443)',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<LoginView> {
    const { flags } = await this.parse(AuthLogin);
    const { createContext } = await import('../../context.js');
    const { checkKey, platformSettings } = await import('../../management.js');
    const ctx = await createContext();
    try {
      const settings = await platformSettings(ctx, flags.endpoint);
      let key = flags['api-key']?.trim();
      if (flags['api-key'] !== undefined && !key) {
        const { CliError } = await import('../../cli-error.js');
        throw new CliError('INVALID_ARGUMENT', '--api-key is empty: pass the platform API key.', {
          argument: 'api-key',
        });
      }
      if (key === undefined) {
        const { readSecret } = await import('../../secret-input.js');
        key = await readSecret('Platform API key: ', 'API key', '--api-key');
      }
      if (!this.jsonEnabled())
        process.stderr.write(`Checking the key with ${settings.endpoint}…\n`);
      const auth = await checkKey({ ...settings, key, keySource: 'login' }, this.config.version);
      const { saveLogin } = await import('@junction/management-client');
      const file = saveLogin(ctx.paths.configHome, {
        api_key: key,
        endpoint: settings.endpoint,
        saved_at: new Date().toISOString(),
        ...(auth.org_id ? { org_id: auth.org_id } : {}),
        station_name: settings.name,
      });
      const configKeyWins = ctx.config.management.registration_key !== undefined;
      this.log(
        `Logged in to ${settings.endpoint}${auth.org_id ? ` (organization ${auth.org_id})` : ''}.`,
      );
      this.log(`The key is stored in ${file} (readable only by you).`);
      if (configKeyWins) {
        this.log(
          'Note: management.registration_key in config.yaml (or JUNCTION_MANAGEMENT_REGISTRATION_KEY) is set and wins over the stored key.',
        );
      }
      if (!ctx.config.management.enabled) {
        this.log(
          'Set management.enabled: true in config.yaml for `junction serve` to connect this station.',
        );
      }
      return {
        platform: settings.endpoint,
        organization: auth.org_id || null,
        file,
        config_key_wins: configKeyWins,
      };
    } finally {
      await ctx.close();
    }
  }
}
