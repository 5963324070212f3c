// Several Junction hosts on one machine for the multi-host tests: each host in its own network
// namespace (`ip netns` + a veth pair on a bridge, made here and removed by `close`), reaching
// the shared servers on the bridge's address — or, where namespaces cannot be made (not root,
// no `ip`), separate processes on 127.0.0.1. Either way every host has its own workspace folder.
// A host may also get a hostname of its own (a UTS namespace, `unshare --uts`, where the user
// may make one): worker ids start with the hostname, and a worker tells a dead worker of its
// own host by its pid, one of another host only by its lease.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './run-cli.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

function ip(args: string[]): { ok: boolean; error: string } {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  return { ok: r.status === 0, error: `${r.stderr ?? ''}${r.error?.message ?? ''}`.trim() };
}

/** Where the hosts run and how to reach them. */
export interface HostNet {
  /** `netns` or `processes`, and why when namespaces could not be had. */
  kind: 'netns' | 'processes';
  reason?: string;
  /** The address the shared servers (sqld, NATS, the fake model) listen on. */
  serverIp: string;
  /** The address host `i` binds its ports to. */
  hostIp(i: number): string;
  /** Whether a host can be given a hostname of its own (see `command`). */
  ownHostnames: boolean;
  /** The command that runs `args` of node in host `i`, named `hostname` when given. */
  command(i: number, args: string[], hostname?: string): { file: string; args: string[] };
  /** Removes the namespaces, links and bridge made. */
  close(): void;
}

/** True when this user may run a command in a UTS namespace of its own (root may). */
function canNameHosts(): boolean {
  return spawnSync('unshare', ['--uts', 'true']).status === 0;
}

/** `argv` (a command and its arguments) run in a UTS namespace whose hostname is `hostname`. */
function named(hostname: string | undefined, argv: string[]): string[] {
  if (hostname === undefined) return argv;
  // `exec` at each step: the process the test holds (and kills) is node itself.
  return ['unshare', '--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', hostname, ...argv];
}

/** `argv` as a command to spawn. */
function spawnable(argv: string[]): { file: string; args: string[] } {
  return { file: argv[0]!, args: argv.slice(1) };
}

/** Hosts as plain processes on 127.0.0.1. */
export function plainHosts(reason = 'asked for'): HostNet {
  const ownHostnames = canNameHosts();
  return {
    kind: 'processes',
    reason,
    serverIp: '127.0.0.1',
    ownHostnames,
    hostIp: () => '127.0.0.1',
    command: (_i, args, hostname) =>
      spawnable(named(ownHostnames ? hostname : undefined, [process.execPath, ...args])),
    close: () => undefined,
  };
}

/** Namespaces for `count` hosts, or plain processes when they cannot be made. */
export function hostNet(count: number): HostNet {
  const plain = plainHosts;
  if (process.getuid?.() !== 0) return plain('not root');
  const tag = randomBytes(2).toString('hex');
  const subnet = `10.${200 + (parseInt(tag, 16) % 50)}.${parseInt(tag.slice(0, 2), 16)}`;
  const bridge = `jb${tag}`;
  const made: Array<() => void> = [];
  const close = (): void => {
    for (const undo of made.reverse()) undo();
    made.length = 0;
  };
  const step = (args: string[]): void => {
    const r = ip(args);
    if (!r.ok) throw new Error(`ip ${args.join(' ')}: ${r.error}`);
  };
  try {
    step(['link', 'add', bridge, 'type', 'bridge']);
    made.push(() => ip(['link', 'del', bridge]));
    step(['addr', 'add', `${subnet}.1/24`, 'dev', bridge]);
    step(['link', 'set', bridge, 'up']);
    for (let i = 0; i < count; i += 1) {
      const ns = `jn${tag}-${i}`;
      const outside = `jv${tag}${i}`;
      const inside = `jp${tag}${i}`;
      step(['netns', 'add', ns]);
      made.push(() => ip(['netns', 'del', ns]));
      step(['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside]);
      made.push(() => ip(['link', 'del', outside]));
      step(['link', 'set', inside, 'netns', ns]);
      step(['link', 'set', outside, 'master', bridge, 'up']);
      step(['-n', ns, 'addr', 'add', `${subnet}.${10 + i}/24`, 'dev', inside]);
      step(['-n', ns, 'link', 'set', inside, 'up']);
      step(['-n', ns, 'link', 'set', 'lo', 'up']);
    }
  } catch (err) {
    close();
    return plain((err as Error).message);
  }
  const ownHostnames = canNameHosts();
  return {
    kind: 'netns',
    serverIp: `${subnet}.1`,
    ownHostnames,
    hostIp: (i) => `${subnet}.${10 + i}`,
    command: (i, args, hostname) =>
      spawnable([
        'ip',
        ...['netns', 'exec', `jn${tag}-${i}`],
        ...named(ownHostnames ? hostname : undefined, [process.execPath, ...args]),
      ]),
    close,
  };
}

/** One running Junction process (serve or worker) of a host. */
export interface HostProcess {
  child: ChildProcess;
  /** Resolves once its start-up line was printed. */
  ready: Promise<void>;
  exit: Promise<number | null>;
  output(): string;
}

/**
 * Starts `junction <args>` in host `i` of `net` with `env` (PATH and HOME added), named
 * `hostname` when given and `net.ownHostnames` (else it keeps the machine's).
 */
export function startHost(
  net: HostNet,
  i: number,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyText: string,
  hostname?: string,
): HostProcess {
  const { file, args: argv } = net.command(i, [bin, ...args], hostname);
  const child = spawn(file, argv, {
    env: { ...baseEnv(), ...env },
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host ${i} did not start: ${out}`)), 60_000);
    const look = (): void => {
      if (out.includes(readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', look);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`host ${i} exited: ${out}`));
    });
  });
  ready.catch(() => undefined);
  return { child, ready, exit, output: () => out };
}
