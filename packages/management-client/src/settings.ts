// What the management channel needs from config.yaml and the workspace: where the platform is,
// how to reach it, which key to present, and what this station is called.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withDefaultPort, type Config } from '@junction/config-templates';
import { readLogin } from './workspace-files.js';
import { ManagementClientError } from './errors.js';

/** Where the key presented to the platform came from. */
export type KeySource = 'config' | 'login';

export interface ManagementSettings {
  /** `host:port` of the management channel. */
  endpoint: string;
  useTls: boolean;
  /** PEM of `management.ca_file`, trusted besides the system CAs. */
  ca?: Buffer;
  /** The registration key (a secret: never logged). */
  key: string | undefined;
  keySource: KeySource | undefined;
  /** Station name: `management.name`, else the host name. */
  name: string;
  tags: string[];
  /** The environment named as the station's default. */
  environment: string;
  /** The workspace folder: the stored login and the status file live there. */
  configHome: string;
}

/**
 * The settings of `config.management`. The key is `management.registration_key` (or
 * JUNCTION_MANAGEMENT_REGISTRATION_KEY) when set — automated deployments pin it there — and
 * otherwise the key `junction auth login` stored in the workspace.
 */
export function managementSettings(
  config: Config,
  options: { configHome: string; endpoint?: string },
): ManagementSettings {
  const m = config.management;
  const endpoint = options.endpoint ?? m.endpoint;
  if (endpoint === undefined) {
    throw new ManagementClientError(
      'MANAGEMENT_NOT_CONFIGURED',
      'management.endpoint is not set: give the platform host:port (or management.base_url) in config.yaml.',
    );
  }
  let ca: Buffer | undefined;
  if (m.ca_file !== undefined) {
    const file = path.resolve(options.configHome, m.ca_file);
    try {
      ca = readFileSync(file);
    } catch (err) {
      throw new ManagementClientError(
        'MANAGEMENT_NOT_CONFIGURED',
        `management.ca_file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): point it at the PEM file of the platform's CA.`,
      );
    }
  }
  const login = m.registration_key === undefined ? readLogin(options.configHome) : undefined;
  const key = m.registration_key ?? login?.api_key;
  return {
    endpoint: withDefaultPort(endpoint),
    useTls: m.use_tls,
    ...(ca ? { ca } : {}),
    key,
    keySource: m.registration_key !== undefined ? 'config' : login ? 'login' : undefined,
    name: m.name ?? os.hostname(),
    tags: m.tags,
    environment: 'default',
    configHome: options.configHome,
  };
}
