// deploy/ cannot be started here (no Docker engine, no cluster in CI), so this checks it the way
// its tools would and against Junction itself: every Kubernetes object against the Kubernetes
// API schema (kubernetes-models' validators) and, as `kubectl apply --validate=strict` does, for
// unknown fields; the Compose file's structure (no npm package ships the Compose Specification's
// schema); and for both, that they set only variables Junction reads, with values its config
// accepts, probe /health on the right ports, start workers with `node dist/worker-main.js`, fit
// together (Services, Secrets, volumes) and write no secret. Deliberately broken copies show each
// check refusing what it should. deploy/README.md's token recipe is run against a real sqld.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { ENV_OVERRIDES, loadConfig } from '@junction/config-templates';
import { drainSecondsOf } from '@junction/service-kit';
import { openStore } from '@junction/store';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';
import { findSqld, killAndWait, SQLD_MISSING } from '@junction/tooling/fixtures/sqld.mjs';
import { APP_VARIABLES } from '../src/app-settings.js';
import { repoRoot } from './processes.js';

const deployDir = path.join(repoRoot, 'deploy');
const kubernetesDir = path.join(deployDir, 'kubernetes');
const appDir = path.join(repoRoot, 'apps/api-server');

// Variables Junction reads: config-templates' table, the apps' own, and the two read elsewhere
// (apiKeysOf reads JUNCTION_API_KEY, resolvePaths XDG_CONFIG_HOME), as deploy-doc.test.ts has it.
const KNOWN = new Set<string>([
  ...ENV_OVERRIDES.map((o) => o.variable),
  ...APP_VARIABLES,
  'JUNCTION_API_KEY',
  'XDG_CONFIG_HOME',
]);
/** A variable whose value is a secret: it must come from a Secret or the environment. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD)$/;
/** How secret.yaml's placeholders start; nothing else may hold a value. */
const PLACEHOLDER = 'change-me-';

// ---- Kubernetes -------------------------------------------------------------------------------

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path?: string; port?: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: EnvVar[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean };
  volumeMounts?: Array<{ name: string; mountPath: string; subPath?: string }>;
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{
    name: string;
    persistentVolumeClaim?: { claimName: string };
    configMap?: { name: string };
  }>;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    serviceName?: string;
    clusterIP?: string;
    selector?: Record<string, string> & { matchLabels?: Record<string, string> };
    ports?: Array<{ name?: string; port: number; targetPort?: number | string }>;
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    volumeClaimTemplates?: Array<{ metadata: { name: string } }>;
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}
interface Manifest {
  /** Path under the repository, for messages. */
  file: string;
  doc: K8sObject;
}

const labelOf = (m: Manifest): string => `${m.file} ${m.doc.kind}/${m.doc.metadata?.name}`;

function readManifests(): Manifest[] {
  const manifests: Manifest[] = [];
  for (const name of readdirSync(kubernetesDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const file = `deploy/kubernetes/${name}`;
    for (const document of parseAllDocuments(readFileSync(path.join(repoRoot, file), 'utf8'))) {
      expect(document.errors).toEqual([]);
      manifests.push({ file, doc: document.toJS() as K8sObject });
    }
  }
  return manifests;
}

/** Each object against the Kubernetes API schema, by the validator of its kind. */
async function schemaProblems(manifests: Manifest[]): Promise<string[]> {
  const problems: string[] = [];
  for (const m of manifests) {
    const { apiVersion, kind } = m.doc;
    let model: { validate(): void };
    try {
      const module = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      model = new module[kind]!(m.doc);
    } catch {
      problems.push(`${labelOf(m)}: no Kubernetes kind ${kind} in ${apiVersion}`);
      continue;
    }
    try {
      model.validate();
    } catch (err) {
      problems.push(`${labelOf(m)}: ${(err as Error).message}`);
    }
  }
  return problems;
}

/**
 * Unknown fields. The API schema lets them through (the API server drops them silently, and a
 * misspelt probe is then no probe); kubectl's strict validation refuses them. kubernetes-models'
 * TypeScript interfaces come from the same OpenAPI document, so each object is compiled as a
 * literal of its kind's interface and TypeScript's excess property check names every stray field.
 */
function unknownFieldProblems(manifests: Manifest[]): string[] {
  const file = path.join(appDir, 'test', '__deploy-manifests__.ts');
  // One object per line, so a diagnostic's line names its object.
  const source = manifests
    .map(
      ({ doc }, i) =>
        `import type { I${doc.kind} as T${i} } from 'kubernetes-models/${doc.apiVersion}/${doc.kind}';\n` +
        `export const m${i}: T${i} = ${JSON.stringify(doc)};`,
    )
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, source, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? source : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file?.fileName !== file || d.start === undefined) return `TypeScript: ${text}`;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${labelOf(manifests[Math.floor(line / 2)]!)}: ${text}`;
  });
}

/** What each Junction Deployment must be. */
const ROLES: Record<
  string,
  { image: string; command?: string[]; port: number; replicas: number; env: Record<string, string> }
> = {
  'junction-api-server': {
    image: 'junction-api-server',
    port: 8585,
    replicas: 1,
    env: { JUNCTION_RUN_WORKERS: 'false', JUNCTION_WORKFLOW_ENGINE: 'false' },
  },
  'junction-worker': {
    image: 'junction-api-server',
    command: ['node', 'dist/worker-main.js'],
    port: 8585,
    replicas: 3,
    env: {},
  },
  'junction-webhook-server': {
    image: 'junction-webhook-server',
    port: 8587,
    replicas: 2,
    env: { JUNCTION_WEBHOOK_ENABLED: 'true' },
  },
};

const imageName = (image: string): string => image.split('/').at(-1)!.split(/[:@]/)[0]!;

/** The container port a probe's port means: a number, or the name of one of its ports. */
function probePort(container: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** `host:port` of a URL, e.g. `sqld:8080` for ws://sqld:8080. */
const hostPortOf = (url: string): string => {
  const u = new URL(url);
  return `${u.hostname}:${u.port}`;
};

/** Whether everything fits Junction and fits together. */
function fitProblems(manifests: Manifest[]): string[] {
  const problems: string[] = [];
  const of = (kind: string) => manifests.filter((m) => m.doc.kind === kind);
  const secrets = of('Secret');
  const configMaps = of('ConfigMap');
  const claims = new Set(of('PersistentVolumeClaim').map((m) => m.doc.metadata.name));
  const services = of('Service');
  const workloads = manifests.filter((m) => ['Deployment', 'StatefulSet'].includes(m.doc.kind));
  const secretValue = (name: string, key: string): string | undefined =>
    secrets.find((s) => s.doc.metadata.name === name)?.doc.stringData?.[key];

  // The Secret holds placeholders only, and no other file holds a value of its.
  const placeholders = secrets.flatMap((s) => Object.values(s.doc.stringData ?? {}));
  for (const s of secrets) {
    if (s.doc.data) problems.push(`${labelOf(s)}: use stringData placeholders, not data`);
    for (const [key, value] of Object.entries(s.doc.stringData ?? {})) {
      if (!value.startsWith(PLACEHOLDER)) {
        problems.push(`${labelOf(s)}: ${key} is not a ${PLACEHOLDER}… placeholder`);
      }
    }
  }
  for (const m of manifests.filter((x) => x.doc.kind !== 'Secret')) {
    const text = JSON.stringify(m.doc);
    for (const value of placeholders) {
      if (text.includes(value)) problems.push(`${labelOf(m)}: holds the secret ${value}`);
    }
  }

  // config.yaml, as every Junction pod reads it: its store and bus are Services here.
  const configText = configMaps.find((c) => c.doc.metadata.name === 'junction-config')?.doc.data?.[
    'config.yaml'
  ];
  if (configText === undefined) problems.push('no ConfigMap junction-config with config.yaml');
  const servicePorts = new Set(
    services.flatMap((s) =>
      (s.doc.spec?.ports ?? []).map((p) => `${s.doc.metadata.name}:${p.port}`),
    ),
  );
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-deploy-'));
  try {
    mkdirSync(path.join(home, 'junction'));
    writeFileSync(path.join(home, 'junction/config.yaml'), configText ?? '');
    const alone = loadConfig({ env: { XDG_CONFIG_HOME: home } });
    for (const [what, url] of [
      ['database_url', alone.database_url],
      ['queue.nats.url', alone.queue.nats.url ?? ''],
    ] as const) {
      if (!servicePorts.has(hostPortOf(url))) {
        problems.push(`config.yaml: ${what} ${url} is no Service here`);
      }
    }
    // Secrets are variables from the Secret, never keys of config.yaml.
    if (
      alone.database_auth_token ||
      alone.ai_api_key ||
      alone.webhook.api_key ||
      alone.api.keys.length > 0
    ) {
      problems.push('config.yaml: holds a key or token; take it from junction-secrets');
    }

    for (const w of workloads) {
      const pod = w.doc.spec!.template!.spec;
      const label = labelOf(w);
      const role = ROLES[w.doc.metadata.name];
      if (pod.securityContext?.runAsNonRoot !== true) problems.push(`${label}: not runAsNonRoot`);
      if (role && pod.securityContext?.runAsUser !== 1000) {
        problems.push(`${label}: not run as the image's user node (uid 1000)`);
      }
      const podLabels = w.doc.spec!.template!.metadata.labels;
      const matches = Object.entries(w.doc.spec!.selector?.matchLabels ?? {});
      if (matches.length === 0 || !matches.every(([k, v]) => podLabels[k] === v)) {
        problems.push(`${label}: its selector does not select its pods`);
      }
      if (w.doc.kind === 'StatefulSet') {
        const governing = services.find((s) => s.doc.metadata.name === w.doc.spec!.serviceName);
        if (governing?.doc.spec?.clusterIP !== 'None') {
          problems.push(`${label}: serviceName ${w.doc.spec!.serviceName} is no headless Service`);
        }
      }
      const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
      for (const v of volumes.values()) {
        if (v.persistentVolumeClaim && !claims.has(v.persistentVolumeClaim.claimName)) {
          problems.push(`${label}: no PersistentVolumeClaim ${v.persistentVolumeClaim.claimName}`);
        }
      }
      for (const c of pod.containers) {
        const where = `${label} container ${c.name}`;
        for (const side of ['requests', 'limits'] as const) {
          for (const resource of ['cpu', 'memory']) {
            if (!c.resources?.[side]?.[resource]) problems.push(`${where}: no ${resource} ${side}`);
          }
        }
        if (c.securityContext?.allowPrivilegeEscalation !== false) {
          problems.push(`${where}: allowPrivilegeEscalation is not false`);
        }
        for (const mount of c.volumeMounts ?? []) {
          const volume = volumes.get(mount.name);
          const claimed = w.doc.spec!.volumeClaimTemplates?.some(
            (t) => t.metadata.name === mount.name,
          );
          if (!volume && !claimed) {
            problems.push(`${where}: mounts ${mount.name}, no volume of its pod`);
          }
          const map =
            volume?.configMap &&
            configMaps.find((x) => x.doc.metadata.name === volume.configMap!.name);
          if (
            volume?.configMap &&
            (!map || (mount.subPath && !(mount.subPath in (map.doc.data ?? {}))))
          ) {
            problems.push(
              `${where}: no ConfigMap ${volume.configMap.name} with ${mount.subPath ?? 'data'}`,
            );
          }
        }
        const env: NodeJS.ProcessEnv = {};
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref) {
            const value = secretValue(ref.name, ref.key);
            if (value === undefined)
              problems.push(`${where}: no Secret ${ref.name} with ${e.name}`);
            env[e.name] = value;
          } else {
            env[e.name] = e.value;
            if (SECRET_NAME.test(e.name)) {
              problems.push(
                `${where}: ${e.name} is a secret written literally; take it from a Secret (secretKeyRef)`,
              );
            }
          }
          if (role && !KNOWN.has(e.name))
            problems.push(`${where}: ${e.name} is no variable Junction reads`);
        }
        if (!role) continue;

        // A Junction container: its image, command, probes, settings and stop.
        if (imageName(c.image) !== role.image)
          problems.push(`${where}: image ${c.image}, not ${role.image}`);
        if (JSON.stringify(c.command) !== JSON.stringify(role.command)) {
          problems.push(
            `${where}: command ${JSON.stringify(c.command)}, not ${JSON.stringify(role.command)}`,
          );
        }
        if (w.doc.spec!.replicas !== role.replicas) {
          problems.push(`${label}: ${w.doc.spec!.replicas} replicas, not ${role.replicas}`);
        }
        for (const [name, value] of Object.entries(role.env)) {
          if (env[name] !== value) problems.push(`${where}: ${name} is ${env[name]}, not ${value}`);
        }
        for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
          const probe = c[kind];
          if (!probe) {
            if (kind !== 'startupProbe') problems.push(`${where}: no ${kind}`);
            continue;
          }
          const port = probePort(c, probe.httpGet?.port);
          if (probe.httpGet?.path !== '/health')
            problems.push(`${where}: ${kind} is not GET /health`);
          if (port === undefined) {
            problems.push(
              `${where}: ${kind} port ${JSON.stringify(probe.httpGet?.port)} is no port of container ${c.name}`,
            );
          } else if (port !== role.port) {
            problems.push(`${where}: ${kind} on port ${port}, not ${role.port}`);
          }
        }
        if (!c.ports?.some((p) => p.containerPort === role.port))
          problems.push(`${where}: does not expose ${role.port}`);
        const mounts = new Map((c.volumeMounts ?? []).map((v) => [v.mountPath, v]));
        if (
          volumes.get(mounts.get('/data/junction')?.name ?? '')?.persistentVolumeClaim
            ?.claimName !== 'junction-workspace'
        ) {
          problems.push(`${where}: the workspace volume is not at /data/junction`);
        }
        if (
          volumes.get(mounts.get('/data/junction/config.yaml')?.name ?? '')?.configMap?.name !==
          'junction-config'
        ) {
          problems.push(`${where}: config.yaml is not junction-config's`);
        }
        try {
          loadConfig({ env: { ...env, XDG_CONFIG_HOME: home } });
          const drain = drainSecondsOf(env);
          if ((pod.terminationGracePeriodSeconds ?? 30) < drain + 10) {
            problems.push(
              `${label}: terminationGracePeriodSeconds is not at least JUNCTION_DRAIN_SECONDS (${drain}) + 10`,
            );
          }
        } catch (err) {
          problems.push(`${where}: ${(err as Error).message}`);
        }
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  // Every Service selects pods of this set, on ports they have.
  for (const s of services) {
    const selector = Object.entries(s.doc.spec?.selector ?? {});
    const target = workloads.find((w) =>
      selector.every(([k, v]) => w.doc.spec!.template!.metadata.labels[k] === v),
    );
    if (selector.length === 0 || !target) {
      problems.push(`${labelOf(s)}: selects no pods here`);
      continue;
    }
    const ports = target.doc.spec!.template!.spec.containers.flatMap((c) => c.ports ?? []);
    for (const p of s.doc.spec?.ports ?? []) {
      const t = p.targetPort ?? p.port;
      if (!ports.some((cp) => cp.name === t || cp.containerPort === t)) {
        problems.push(`${labelOf(s)}: targetPort ${t} is no port of ${labelOf(target)}`);
      }
    }
  }
  return problems;
}

/** Every check of deploy/kubernetes, in order. */
async function kubernetesProblems(manifests: Manifest[]): Promise<string[]> {
  return [
    ...(await schemaProblems(manifests)),
    ...unknownFieldProblems(manifests),
    ...fitProblems(manifests),
  ];
}

// ---- Compose ----------------------------------------------------------------------------------

// The Compose Specification's top-level and service keys (compose-spec.json): a misspelt key is
// refused by `docker compose`, so it is refused here.
const COMPOSE_TOP_KEYS = new Set([
  'version',
  'name',
  'include',
  'services',
  'networks',
  'volumes',
  'secrets',
  'configs',
  'models',
]);
const COMPOSE_SERVICE_KEYS = new Set(
  (
    'annotations attach blkio_config build cap_add cap_drop cgroup cgroup_parent command configs ' +
    'container_name cpu_count cpu_percent cpu_period cpu_quota cpu_rt_period cpu_rt_runtime ' +
    'cpu_shares cpus cpuset credential_spec depends_on deploy develop device_cgroup_rules devices ' +
    'dns dns_opt dns_search domainname entrypoint env_file environment expose extends ' +
    'external_links extra_hosts gpus group_add healthcheck hostname image init ipc isolation ' +
    'label_file labels links logging mac_address mem_limit mem_reservation mem_swappiness ' +
    'memswap_limit models network_mode networks oom_kill_disable oom_score_adj pid pids_limit ' +
    'platform ports post_start pre_stop privileged profiles provider pull_policy read_only restart ' +
    'runtime scale secrets security_opt shm_size stdin_open stop_grace_period stop_signal ' +
    'storage_opt sysctls tmpfs tty ulimits use_api_socket user userns_mode uts volumes ' +
    'volumes_from working_dir'
  ).split(' '),
);

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, unknown>;
  deploy?: { replicas?: number };
  stop_grace_period?: string;
  [key: string]: unknown;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}

const COMPOSE_ROLES: Record<
  string,
  {
    image: string;
    dockerfile: string;
    command?: string[];
    port: number;
    replicas?: number;
    env: Record<string, string>;
  }
> = {
  api: {
    image: 'junction-api-server',
    dockerfile: 'apps/api-server/Dockerfile',
    port: 8585,
    env: { JUNCTION_RUN_WORKERS: 'false', JUNCTION_WORKFLOW_ENGINE: 'false' },
  },
  worker: {
    image: 'junction-api-server',
    dockerfile: 'apps/api-server/Dockerfile',
    command: ['node', 'dist/worker-main.js'],
    port: 8585,
    replicas: 3,
    env: {},
  },
  webhook: {
    image: 'junction-webhook-server',
    dockerfile: 'apps/webhook-server/Dockerfile',
    port: 8587,
    env: { JUNCTION_WEBHOOK_ENABLED: 'true' },
  },
};
const COMPOSE_IMAGES: Record<string, string> = {
  sqld: 'ghcr.io/tursodatabase/libsql-server:v0.24.32',
  nats: 'nats:2.10-alpine',
};

/** `${NAME}`, `${NAME:?message}` and friends: a value taken from the environment or .env. */
const INTERPOLATED = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?+][^}]*)?\}$/;

/** Seconds of a Compose duration (`1m30s`). */
function seconds(duration: string | undefined): number {
  let total = 0;
  for (const [, n, unit] of (duration ?? '').matchAll(/(\d+)(ms|s|m|h)/g)) {
    total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

function composeProblems(compose: ComposeFile): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(compose)) {
    if (!COMPOSE_TOP_KEYS.has(key) && !key.startsWith('x-'))
      problems.push(`unknown top-level key ${key}`);
  }
  const names = Object.keys(compose.services).sort();
  const expected = [...Object.keys(COMPOSE_ROLES), ...Object.keys(COMPOSE_IMAGES)].sort();
  if (JSON.stringify(names) !== JSON.stringify(expected))
    problems.push(`services ${names.join(', ')}, not ${expected.join(', ')}`);
  const workspaces = new Set<string>();
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-compose-'));
  try {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const key of Object.keys(service)) {
        if (!COMPOSE_SERVICE_KEYS.has(key) && !key.startsWith('x-'))
          problems.push(`${name}: unknown key ${key}`);
      }
      if (!service.healthcheck?.test) problems.push(`${name}: no healthcheck`);
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        if (!compose.services[dependency])
          problems.push(`${name}: depends on ${dependency}, no service`);
      }
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (
          !source.startsWith('/') &&
          !source.startsWith('.') &&
          !(source in (compose.volumes ?? {}))
        ) {
          problems.push(`${name}: volume ${source} is not declared`);
        }
      }
      for (const port of service.ports ?? []) {
        if (!port.startsWith('127.0.0.1:'))
          problems.push(`${name}: port ${port} is published beyond loopback`);
      }
      const environment = service.environment ?? {};
      for (const [variable, value] of Object.entries(environment)) {
        const from = INTERPOLATED.exec(String(value))?.[1];
        if (SECRET_NAME.test(variable) && from !== variable) {
          problems.push(
            `${name}: ${variable} is a secret written literally; take it from the environment (\${${variable}})`,
          );
        }
      }
      if (COMPOSE_IMAGES[name] && service.image !== COMPOSE_IMAGES[name]) {
        problems.push(`${name}: image ${service.image}, not ${COMPOSE_IMAGES[name]}`);
      }
      const role = COMPOSE_ROLES[name];
      if (!role) continue;

      // A Junction service: its image, command, health check, settings and stop.
      if (service.image !== role.image)
        problems.push(`${name}: image ${service.image}, not ${role.image}`);
      const dockerfile =
        service.build && path.join(deployDir, service.build.context, service.build.dockerfile);
      if (dockerfile !== path.join(repoRoot, role.dockerfile) || !existsSync(dockerfile)) {
        problems.push(`${name}: does not build ${role.dockerfile}`);
      }
      if (JSON.stringify(service.command) !== JSON.stringify(role.command)) {
        problems.push(
          `${name}: command ${JSON.stringify(service.command)}, not ${JSON.stringify(role.command)}`,
        );
      }
      if (service.deploy?.replicas !== role.replicas)
        problems.push(`${name}: ${service.deploy?.replicas} replicas, not ${role.replicas}`);
      const health = `http://127.0.0.1:${role.port}/health`;
      if (!service.healthcheck?.test.join(' ').includes(health))
        problems.push(`${name}: the healthcheck does not GET ${health}`);
      const env: NodeJS.ProcessEnv = {};
      for (const [variable, value] of Object.entries(environment)) {
        if (!KNOWN.has(variable))
          problems.push(`${name}: ${variable} is no variable Junction reads`);
        env[variable] = INTERPOLATED.test(String(value))
          ? `${PLACEHOLDER}${variable.toLowerCase()}`
          : String(value);
      }
      for (const [variable, value] of Object.entries(role.env)) {
        if (env[variable] !== value)
          problems.push(`${name}: ${variable} is ${env[variable]}, not ${value}`);
      }
      const workspace = env.XDG_CONFIG_HOME ?? '';
      if (!(service.volumes ?? []).includes(`${workspace}:${workspace}`)) {
        problems.push(`${name}: the workspace ${workspace} is not mounted at its own path`);
      }
      workspaces.add(workspace);
      for (const [variable, service_, port] of [
        ['JUNCTION_DATABASE_URL', 'sqld', '8080'],
        ['JUNCTION_QUEUE_NATS_URL', 'nats', '4222'],
      ] as const) {
        if (!env[variable] || hostPortOf(env[variable]!) !== `${service_}:${port}`) {
          problems.push(`${name}: ${variable} is not the ${service_} service on ${port}`);
        }
      }
      try {
        loadConfig({ env: { ...env, XDG_CONFIG_HOME: home } });
        const drain = drainSecondsOf(env);
        if (seconds(service.stop_grace_period) < drain + 10) {
          problems.push(
            `${name}: stop_grace_period is not at least JUNCTION_DRAIN_SECONDS (${drain}) + 10 s`,
          );
        }
      } catch (err) {
        problems.push(`${name}: ${(err as Error).message}`);
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  if (workspaces.size !== 1)
    problems.push(
      `the Junction services mount different workspaces: ${[...workspaces].join(', ')}`,
    );
  const sqld = compose.services.sqld?.command?.join(' ') ?? '';
  if (!sqld.includes('--http-listen-addr 0.0.0.0:8080'))
    problems.push('sqld: does not listen on 8080');
  if (!(compose.services.nats?.command ?? []).includes('-js'))
    problems.push('nats: JetStream is off (-js)');
  return problems;
}

// ---- the tests --------------------------------------------------------------------------------

/** Every JUNCTION_* name a text uses. */
const junctionNames = (text: string): string[] =>
  [...text.matchAll(/\bJUNCTION_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0]);

const composeText = readFileSync(path.join(deployDir, 'compose.yaml'), 'utf8');
const readCompose = (): ComposeFile => parse(composeText, { merge: true }) as ComposeFile;

describe('deploy/kubernetes', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = readManifests();
  });
  const named = (all: Manifest[], name: string, kind = 'Deployment'): Manifest =>
    all.find((m) => m.doc.kind === kind && m.doc.metadata.name === name)!;
  const copy = (): Manifest[] => structuredClone(manifests);
  const containerOf = (all: Manifest[], name: string): Container =>
    named(all, name).doc.spec!.template!.spec.containers[0]!;

  it('has every piece, without a namespace', () => {
    const kinds = manifests.map((m) => `${m.file} ${m.doc.kind}/${m.doc.metadata.name}`);
    expect(kinds).toEqual([
      'deploy/kubernetes/api-server.yaml Deployment/junction-api-server',
      'deploy/kubernetes/api-server.yaml Service/junction-api-server',
      'deploy/kubernetes/configmap.yaml ConfigMap/junction-config',
      'deploy/kubernetes/nats.yaml StatefulSet/nats',
      'deploy/kubernetes/nats.yaml Service/nats',
      'deploy/kubernetes/nats.yaml Service/nats-headless',
      'deploy/kubernetes/secret.yaml Secret/junction-secrets',
      'deploy/kubernetes/sqld.yaml StatefulSet/sqld',
      'deploy/kubernetes/sqld.yaml Service/sqld',
      'deploy/kubernetes/sqld.yaml Service/sqld-headless',
      'deploy/kubernetes/webhook-server.yaml Deployment/junction-webhook-server',
      'deploy/kubernetes/webhook-server.yaml Service/junction-webhook-server',
      'deploy/kubernetes/workers.yaml Deployment/junction-worker',
      'deploy/kubernetes/workspace.yaml PersistentVolumeClaim/junction-workspace',
    ]);
    expect(manifests.filter((m) => 'namespace' in m.doc.metadata)).toEqual([]);
  });

  it('is valid against the Kubernetes API schema, with no unknown field', async () => {
    expect(await schemaProblems(manifests)).toEqual([]);
    expect(unknownFieldProblems(manifests)).toEqual([]);
  });

  it('fits Junction and fits together: variables, probes, the worker command, Secrets, volumes, Services', () => {
    expect(fitProblems(manifests)).toEqual([]);
    expect(containerOf(manifests, 'junction-worker').command).toEqual([
      'node',
      'dist/worker-main.js',
    ]);
    expect(
      named(manifests, 'sqld', 'StatefulSet').doc.spec!.template!.spec.containers[0]!.image,
    ).toBe('ghcr.io/tursodatabase/libsql-server:v0.24.32');
    expect(
      named(manifests, 'nats', 'StatefulSet').doc.spec!.template!.spec.containers[0]!.args,
    ).toContain('-js');
  });

  it('names only variables Junction reads, anywhere in the files', () => {
    const texts = readdirSync(kubernetesDir).map((f) =>
      readFileSync(path.join(kubernetesDir, f), 'utf8'),
    );
    const names = texts.flatMap(junctionNames);
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !KNOWN.has(n))).toEqual([]);
  });

  it('refuses a copy with an unknown field, which the API schema alone lets through', async () => {
    const broken = copy();
    const api = containerOf(broken, 'junction-api-server') as Container & { livenesProbe?: Probe };
    api.livenesProbe = api.livenessProbe;
    delete api.livenessProbe;
    expect(await schemaProblems(broken)).toEqual([]);
    expect(unknownFieldProblems(broken)).toEqual([
      `deploy/kubernetes/api-server.yaml Deployment/junction-api-server: Object literal may only specify known properties, and '"livenesProbe"' does not exist in type 'IContainer'.`,
    ]);
    expect(fitProblems(broken)).toEqual([
      'deploy/kubernetes/api-server.yaml Deployment/junction-api-server container api-server: no livenessProbe',
    ]);
  });

  it('refuses a copy whose replicas is no integer', async () => {
    const broken = copy();
    named(broken, 'junction-webhook-server').doc.spec!.replicas = 'two' as unknown as number;
    expect(await schemaProblems(broken)).toEqual([
      'deploy/kubernetes/webhook-server.yaml Deployment/junction-webhook-server: data/spec/replicas must be integer',
    ]);
    expect(unknownFieldProblems(broken)).toEqual([
      `deploy/kubernetes/webhook-server.yaml Deployment/junction-webhook-server: Type 'string' is not assignable to type 'number'.`,
    ]);
  });

  it('refuses a copy whose probe port is "abc", a port name the container does not have', async () => {
    const broken = copy();
    containerOf(broken, 'junction-worker').livenessProbe!.httpGet!.port = 'abc';
    // A port name is valid in the schema: only a port of the container is right.
    expect(await schemaProblems(broken)).toEqual([]);
    expect(fitProblems(broken)).toEqual([
      'deploy/kubernetes/workers.yaml Deployment/junction-worker container worker: livenessProbe port "abc" is no port of container worker',
    ]);
  });

  it('refuses a copy that writes a secret literally or sets a variable Junction does not read', () => {
    const broken = copy();
    const api = containerOf(broken, 'junction-api-server');
    api.env = api.env!.map((e) =>
      e.name === 'JUNCTION_API_KEY' ? { name: e.name, value: 'a-literal-key-0123456789' } : e,
    );
    containerOf(broken, 'junction-worker').env!.push({ name: 'JUNCTION_WORKER_COUNT', value: '3' });
    expect(fitProblems(broken)).toEqual([
      'deploy/kubernetes/api-server.yaml Deployment/junction-api-server container api-server: JUNCTION_API_KEY is a secret written literally; take it from a Secret (secretKeyRef)',
      'deploy/kubernetes/workers.yaml Deployment/junction-worker container worker: JUNCTION_WORKER_COUNT is no variable Junction reads',
    ]);
  });

  it('refuses a copy whose worker is not started as a worker, or drains past its grace period', () => {
    const broken = copy();
    delete containerOf(broken, 'junction-worker').command;
    named(
      broken,
      'junction-webhook-server',
    ).doc.spec!.template!.spec.terminationGracePeriodSeconds = 25;
    expect(fitProblems(broken)).toEqual([
      'deploy/kubernetes/webhook-server.yaml Deployment/junction-webhook-server: terminationGracePeriodSeconds is not at least JUNCTION_DRAIN_SECONDS (20) + 10',
      'deploy/kubernetes/workers.yaml Deployment/junction-worker container worker: command undefined, not ["node","dist/worker-main.js"]',
    ]);
  });

  it('has every check together find nothing', async () => {
    expect(await kubernetesProblems(manifests)).toEqual([]);
  });
});

describe('deploy/compose.yaml', () => {
  it('has the five services, fitting Junction: variables, health checks, the worker command, no secret', () => {
    const compose = readCompose();
    expect(composeProblems(compose)).toEqual([]);
    expect(compose.services.worker!.command).toEqual(['node', 'dist/worker-main.js']);
    expect(compose.services.worker!.deploy!.replicas).toBe(3);
    expect(compose.services.api!.environment!.JUNCTION_RUN_WORKERS).toBe('false');
  });

  it('names only variables Junction reads, anywhere in the file', () => {
    const names = junctionNames(composeText);
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !KNOWN.has(n))).toEqual([]);
  });

  it('refuses a copy with a misspelt key, a literal secret or a worker probed on the wrong port', () => {
    const broken = readCompose();
    const api = broken.services.api!;
    api.healtcheck = api.healthcheck;
    delete api.healthcheck;
    api.environment!.JUNCTION_API_KEY = 'a-literal-key-0123456789';
    broken.services.worker!.healthcheck!.test = broken.services.worker!.healthcheck!.test.map((t) =>
      t.replace('8585', '8587'),
    );
    expect(composeProblems(broken)).toEqual([
      'api: unknown key healtcheck',
      'api: no healthcheck',
      'api: JUNCTION_API_KEY is a secret written literally; take it from the environment (${JUNCTION_API_KEY})',
      'api: the healthcheck does not GET http://127.0.0.1:8585/health',
      'worker: the healthcheck does not GET http://127.0.0.1:8585/health',
    ]);
  });
});

describe('docs/deploy.md#many-hosts', () => {
  const doc = readFileSync(path.join(repoRoot, 'docs/deploy.md'), 'utf8');
  const start = doc.indexOf('## Many hosts\n');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));

  it('shows the pieces as a picture and as text for terminals', () => {
    expect(start).toBeGreaterThan(0);
    expect(section).toContain('](images/many-hosts.svg)');
    const svg = readFileSync(path.join(repoRoot, 'docs/images/many-hosts.svg'), 'utf8');
    const ascii = /```text\n([\s\S]*?)```/.exec(section)![1]!;
    for (const piece of [
      'webhook-server',
      'api-server',
      'worker 1',
      'worker 2',
      'worker 3',
      'sqld',
      'nats-server',
    ]) {
      expect(svg).toContain(piece);
      expect(ascii).toContain(piece);
    }
    expect(svg.trimStart().startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  });
});

const sqld = findSqld();
if (!sqld)
  process.stderr.write(
    `\n*** SKIPPING deploy/README.md's token recipe on sqld: ${SQLD_MISSING} ***\n\n`,
  );

(sqld ? describe : describe.skip)("deploy/README.md's secrets recipe", () => {
  let dir: string;
  let child: ChildProcess | undefined;
  let url: string;
  let made: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'junction-recipe-'));
    const readme = readFileSync(path.join(deployDir, 'README.md'), 'utf8');
    const recipe = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes('generateKeyPairSync'))!;
    const ran = spawn('sh', ['-c', recipe], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    ran.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise((resolve) => ran.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    made = Object.fromEntries(
      readFileSync(path.join(dir, '.env'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    // The server, started with the public key as the images start it.
    const port = await freePort();
    url = `ws://127.0.0.1:${port}`;
    child = spawn(
      sqld!,
      ['--db-path', path.join(dir, 'data.sqld'), '--http-listen-addr', `127.0.0.1:${port}`],
      {
        stdio: 'ignore',
        env: { ...process.env, SQLD_AUTH_JWT_KEY: made.SQLD_AUTH_JWT_KEY, RUST_LOG: 'error' },
      },
    );
    for (const deadline = Date.now() + 15_000; ; ) {
      const up = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.status < 500,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error('sqld did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 180_000);

  afterAll(async () => {
    await killAndWait(child, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes every secret the setups need, each a long random value', () => {
    expect(Object.keys(made).sort()).toEqual([
      'JUNCTION_API_KEY',
      'JUNCTION_DATABASE_AUTH_TOKEN',
      'JUNCTION_WEBHOOK_API_KEY',
      'SQLD_AUTH_JWT_KEY',
    ]);
    expect(made.JUNCTION_API_KEY).not.toBe(made.JUNCTION_WEBHOOK_API_KEY);
    for (const value of Object.values(made)) expect(value).toMatch(/^[\w.-]{40,}$/);
  });

  it('makes a token sqld takes for Junction, while no token or another key is refused', async () => {
    const store = await openStore({ url, authToken: made.JUNCTION_DATABASE_AUTH_TOKEN });
    const run = await store.runs.create({ agentName: 'a', task: 'from the recipe', source: 'cli' });
    expect((await store.runs.get(run.id))?.task).toBe('from the recipe');
    await store.close();
    await expect(openStore({ url })).rejects.toMatchObject({ code: 'STORE_OPEN_FAILED' });
    // The same claims signed by another key.
    const [head, body] = made.JUNCTION_DATABASE_AUTH_TOKEN!.split('.');
    const other = generateKeyPairSync('ed25519').privateKey;
    const forged = `${head}.${body}.${sign(null, Buffer.from(`${head}.${body}`), other).toString('base64url')}`;
    await expect(openStore({ url, authToken: forged })).rejects.toMatchObject({
      code: 'STORE_OPEN_FAILED',
    });
  });
});
