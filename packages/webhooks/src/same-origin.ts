// Cross-site request forgery guard of the approval decisions. A page served from any other
// origin — another port of localhost included — could make a browser POST the approval form;
// with no webhook key (and no token needed) that decided the step. A browser says where a POST
// comes from (Origin, and Sec-Fetch-Site in current browsers): a decision is taken only from
// this server's own origin, host and port, which is where the approval page's form posts from.
import type { IncomingMessage } from 'node:http';
import { WebhookError } from './errors.js';

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** `host:port` of an origin, the scheme's default port filled in; undefined for `null` or junk. */
function originHost(origin: string): { host: string; protocol: string } | undefined {
  try {
    const url = new URL(origin);
    const port = url.port || DEFAULT_PORTS[url.protocol];
    if (port === undefined || url.hostname === '') return undefined;
    return { host: `${url.hostname.toLowerCase()}:${port}`, protocol: url.protocol };
  } catch {
    return undefined;
  }
}

/** `host:port` the request was sent to (its Host header), the origin's default port filled in. */
function requestHost(req: IncomingMessage, protocol: string): string | undefined {
  const host = req.headers.host;
  if (host === undefined || host === '') return undefined;
  try {
    const url = new URL(`${protocol}//${host}`);
    return `${url.hostname.toLowerCase()}:${url.port || DEFAULT_PORTS[protocol] || ''}`;
  } catch {
    return undefined;
  }
}

/**
 * Why a POST did not come from this server's own origin, or undefined when it may pass. A request
 * without Origin and Sec-Fetch-Site (curl, a chat bot, a server) passes: only browsers send them,
 * and a browser always sends Origin with a form POST.
 */
export function crossOriginRefusal(req: IncomingMessage): WebhookError | undefined {
  const origin = req.headers.origin?.slice(0, 200);
  const site = req.headers['sec-fetch-site'];
  const refuse = (from: string): WebhookError =>
    new WebhookError(
      'ORIGIN_NOT_ALLOWED',
      `This decision was sent from ${from}, not from this server's own approval page; nothing was decided. Open the approval link and use the buttons on its page (or send the decision without a browser, with the link's token or the webhook key).`,
      { origin: origin ?? null },
    );
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') {
    return refuse(origin ? `a page at ${origin}` : `a ${site} page`);
  }
  if (origin === undefined) return undefined;
  const from = originHost(origin);
  if (from === undefined || from.host !== requestHost(req, from.protocol)) {
    return refuse(origin === 'null' ? 'a page without an origin' : `a page at ${origin}`);
  }
  return undefined;
}
