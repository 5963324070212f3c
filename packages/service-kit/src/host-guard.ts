// DNS-rebinding protection for the REST and webhook ports: a page whose domain was rebound to
// 127.0.0.1 sends its own Host (and Origin); a server bound to loopback answers only the names
// that mean this machine, plus the names an operator allows for a proxy in front of it.
import type { RequestHandler } from 'express';

/** The loopback names, and 127.0.0.0/8. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The host name of a Host header value, lower case, without its port (`[::1]:8585` → `[::1]`). */
function hostName(value: string): string {
  const lower = value.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon < 0 ? lower : lower.slice(0, colon);
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

/**
 * The check of a loopback-bound port: Host must name this machine (127.x, localhost, [::1]) or
 * one of JUNCTION_ALLOWED_HOSTS (host names, any port); an Origin, when sent, must be
 * http(s)://<such a host>[:port] or one of JUNCTION_ALLOWED_ORIGINS. 403 JSON otherwise.
 */
export function hostGuard(env: NodeJS.ProcessEnv = process.env): RequestHandler {
  const hosts = new Set(['localhost', '[::1]', ...list(env.JUNCTION_ALLOWED_HOSTS).map(hostName)]);
  const origins = new Set(list(env.JUNCTION_ALLOWED_ORIGINS));
  const hostAllowed = (name: string): boolean =>
    hosts.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
  const originAllowed = (origin: string): boolean => {
    const lower = origin.toLowerCase();
    if (origins.has(lower)) return true;
    const match = /^https?:\/\/([^/]+)$/.exec(lower);
    return match !== null && hostAllowed(hostName(match[1] ?? ''));
  };
  return (req, res, next) => {
    const host = req.headers.host;
    const origin = req.headers.origin;
    const refusal =
      host === undefined || !hostAllowed(hostName(host))
        ? `Host ${JSON.stringify(host ?? '')} is not a name of this server. It is bound to a loopback address; set JUNCTION_ALLOWED_HOSTS (comma-separated host names) when a proxy serves it under another name.`
        : origin !== undefined && !originAllowed(origin)
          ? `Origin ${JSON.stringify(origin)} is not allowed. Set JUNCTION_ALLOWED_ORIGINS to allow it.`
          : undefined;
    if (refusal === undefined) {
      next();
      return;
    }
    res.status(403).json({ error: { code: 'HOST_NOT_ALLOWED', message: refusal } });
  };
}
