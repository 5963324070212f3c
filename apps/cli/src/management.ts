// What `junction auth` needs of the management client: the platform's settings from config.yaml
// (or --endpoint), and one registration to check a key, its failures as coded CLI errors.
import type { AuthResult, ManagementSettings } from '@junction/management-client';
import type { CliContext } from './context.js';

/** How long `auth login` waits for the platform. */
const CHECK_TIMEOUT_MS = 15_000;

/** The platform settings; MANAGEMENT_NOT_CONFIGURED (exit 3) when no endpoint is known. */
export async function platformSettings(
  ctx: CliContext,
  endpoint: string | undefined,
): Promise<ManagementSettings> {
  const m = await import('@junction/management-client');
  try {
    return m.managementSettings(ctx.config, {
      configHome: ctx.paths.configHome,
      ...(endpoint !== undefined ? { endpoint } : {}),
    });
  } catch (err) {
    if (err instanceof m.ManagementClientError) {
      throw new m.ManagementClientError(
        err.code,
        `${err.message.replace(/\.$/, '')}; or pass --endpoint host[:port].`,
        err.details,
      );
    }
    throw err;
  }
}

/**
 * Registers once with `settings.key` and closes. The check registers as `<name> (auth login)`
 * so a running station of the same name is not replaced by it. A failure is the package's
 * ManagementClientError as it is: MANAGEMENT_KEY_REFUSED (exit 2) or MANAGEMENT_UNREACHABLE (exit 1).
 */
export async function checkKey(settings: ManagementSettings, version: string): Promise<AuthResult> {
  const m = await import('@junction/management-client');
  const { createNoopLogger } = await import('@junction/telemetry');
  return m.ManagementChannel.check({
    settings: { ...settings, name: `${settings.name} (auth login)` },
    station: {
      describe: async () => ({ agents: [], tools: [], mcp_servers: [] }),
      handle: async () => undefined,
    },
    version,
    logger: createNoopLogger(),
    connectTimeoutMs: CHECK_TIMEOUT_MS,
  });
}
