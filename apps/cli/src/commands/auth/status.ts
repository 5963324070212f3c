import { JunctionCommand } from '../../base-command.js';

export interface AuthStatusView {
  connected: boolean;
  /** The channel's state as the process holding it last wrote it; null when none ever ran. */
  state: string | null;
  platform: string | null;
  organization: string | null;
  station_name: string | null;
  station_id: string | null;
  last_sync_at: string | null;
  /** Which key a station started now would present: config, login (stored), or none. */
  key_source: 'config' | 'login' | null;
  /** Why the channel is down, when it is. */
  error: string | null;
  /** The process holding the channel, while it runs. */
  pid: number | null;
}

export default class AuthStatus extends JunctionCommand {
  static override description =
    'Show the management platform connection: connected or not, organization, station name and last sync (as the running `junction serve`, `stdio` or api-server of this workspace last recorded it), and which key is used.';

  static override examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status --json',
  ];

  static override enableJsonFlag = true;

  async run(): Promise<AuthStatusView> {
    await this.parse(AuthStatus);
    const { createContext } = await import('../../context.js');
    const { readLogin, readStatus } = await import('@junction/management-client');
    const { formatWhen } = await import('../../duration.js');
    const { processAlive } = await import('@junction/agent-core/runs');
    const ctx = await createContext();
    try {
      const home = ctx.paths.configHome;
      const m = ctx.config.management;
      const login = readLogin(home);
      const keySource = m.registration_key !== undefined ? 'config' : login ? 'login' : null;
      const status = readStatus(home);
      const running =
        status !== undefined && status.state !== 'stopped' && processAlive(status.pid);
      const connected = running && status.state === 'connected';
      const view: AuthStatusView = {
        connected,
        state: status ? (running ? status.state : 'stopped') : null,
        platform: status?.platform ?? m.endpoint ?? login?.endpoint ?? null,
        organization: status?.org_id ?? login?.org_id ?? null,
        station_name: status?.station_name ?? m.name ?? null,
        station_id: status?.station_id ?? null,
        last_sync_at: status?.last_sync_at ?? null,
        key_source: keySource,
        error: running ? (status.error ?? null) : null,
        pid: running ? status.pid : null,
      };
      const rows: Array<[string, string]> = [
        ['Platform', view.platform ?? '(not configured: set management.endpoint in config.yaml)'],
        [
          'Connected',
          connected
            ? `yes (pid ${view.pid})`
            : running
              ? `no — ${view.state}${view.error ? `: ${view.error}` : ''}`
              : `no — no running junction serve, stdio or api-server holds the channel${m.enabled ? '' : ' (management.enabled is false)'}`,
        ],
        ['Organization', view.organization ?? '-'],
        [
          'Station',
          view.station_name
            ? `${view.station_name}${view.station_id ? ` (id ${view.station_id})` : ''}`
            : '-',
        ],
        [
          'Last sync',
          view.last_sync_at ? formatWhen(new Date(view.last_sync_at), new Date()) : 'never',
        ],
        [
          'Key',
          keySource === 'config'
            ? 'management.registration_key (config.yaml or JUNCTION_MANAGEMENT_REGISTRATION_KEY)'
            : keySource === 'login'
              ? 'stored by `junction auth login`'
              : 'none: run `junction auth login` or set management.registration_key',
        ],
      ];
      for (const [name, value] of rows) this.log(`${`${name}:`.padEnd(14)}${value}`);
      return view;
    } finally {
      await ctx.close();
    }
  }
}
