// Why the management channel could not be made, told apart the way an operator fixes it: the
// platform refused the key, the network did not reach it, or TLS failed. The text starts with
// the spec's `failed to connect to <platform>`.
import * as grpc from '@grpc/grpc-js';
import { ManagementClientError } from './errors.js';

export type ConnectCause = 'key' | 'network' | 'tls' | 'platform';

/**
 * The error of a channel that could not be made: MANAGEMENT_KEY_REFUSED when the platform
 * answered and refused the key (retrying does not help), else MANAGEMENT_UNREACHABLE; its
 * details name the platform and what failed (`cause`).
 */
export function connectFailure(
  platform: string,
  cause: ConnectCause,
  detail: string,
): ManagementClientError {
  return new ManagementClientError(
    cause === 'key' ? 'MANAGEMENT_KEY_REFUSED' : 'MANAGEMENT_UNREACHABLE',
    `failed to connect to ${platform}: ${explain(cause, detail)}`,
    { platform, cause },
  );
}

function explain(cause: ConnectCause, detail: string): string {
  switch (cause) {
    case 'key':
      return `the platform refused the registration key (${detail}). Check management.registration_key (or run \`junction auth login\` again): keys differ per environment and are rotated.`;
    case 'network':
      return `network: ${detail}. Check that the host name resolves and that outbound connections to the endpoint's port (443 by default) are allowed.`;
    case 'tls':
      return `TLS: ${detail}. Check that the certificate names the endpoint's host, set management.ca_file to the PEM of a private platform's CA, or management.use_tls to match the platform.`;
    case 'platform':
      return `the platform did not accept the connection (${detail}).`;
  }
}

const TLS_SIGNS = [
  /certificate/i,
  /\bSSL\b/i,
  /\bTLS\b/i,
  /self[- ]signed/i,
  /unable to (verify|get)/i,
  /altnames/i,
  /Hostname\/IP does not match/i,
  /wrong version number/i,
  /handshake/i,
  /ERR_TLS/i,
  /ERR_SSL/i,
];

const NETWORK_SIGNS: Array<[RegExp, string]> = [
  [/ECONNREFUSED/, 'connection refused'],
  [/Name resolution failed|ENOTFOUND|EAI_AGAIN|getaddrinfo/i, 'the host name does not resolve'],
  [/ETIMEDOUT|timed out|timeout/i, 'the connection timed out'],
  [/EHOSTUNREACH|ENETUNREACH/, 'the host is unreachable'],
  [/ECONNRESET|socket hang up/i, 'the connection was reset'],
];

/** The last error grpc-js saw, without its "No connection established" wrapping. */
function cleanDetail(details: string): string {
  return details
    .replace(/^No connection established\.\s*/i, '')
    .replace(/^Last error:\s*/i, '')
    .replace(/^Error(?: \[[A-Z_]+\])?:\s*/, '')
    .replace(/\.?\s*Resolution note:[^.]*\.?/g, '')
    .replace(/\s+\(\d{4}-\d\d-\d\dT[^)]*\)/g, '')
    .trim();
}

/** Classifies what went wrong while connecting or authenticating. */
export function connectError(platform: string, err: unknown): ManagementClientError {
  if (err instanceof ManagementClientError) return err;
  const e = err as Partial<grpc.ServiceError> & { message?: string };
  const details = cleanDetail(e.details ?? e.message ?? String(err));
  if (e.code === grpc.status.UNAUTHENTICATED || e.code === grpc.status.PERMISSION_DENIED) {
    return connectFailure(platform, 'key', details || 'unauthenticated');
  }
  if (TLS_SIGNS.some((re) => re.test(details))) {
    return connectFailure(platform, 'tls', details);
  }
  for (const [re, what] of NETWORK_SIGNS) {
    if (re.test(details)) return connectFailure(platform, 'network', `${what} (${details})`);
  }
  if (e.code === grpc.status.UNAVAILABLE || e.code === grpc.status.DEADLINE_EXCEEDED) {
    return connectFailure(platform, 'network', details || 'unavailable');
  }
  return connectFailure(
    platform,
    'platform',
    e.code !== undefined ? `${grpc.status[e.code] ?? e.code}: ${details}` : details,
  );
}
