// The layer rule (`junction/layers`): imports between Junction packages only point down,
// base ← domain ← surface ← kit ← app (docs/architecture.md). It is a small local rule rather
// than core `no-restricted-imports` because it needs the importing file's own package: that
// names both sides in every refusal, and it is what tells a relative import that climbs out
// of its package. The package is read from the nearest package.json above the linted file,
// so the rule gives the same answer whichever folder ESLint runs from.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every workspace package and its layer. A new package is placed here before anything imports it. */
export const PACKAGE_LAYERS = Object.freeze({
  // The one error model: imported by every package, itself importing none.
  '@junction/errors': 'base',
  '@junction/store': 'base',
  '@junction/config-templates': 'base',
  '@junction/telemetry': 'base',
  '@junction/agent-core': 'domain',
  '@junction/workflows': 'domain',
  '@junction/scheduler': 'domain',
  '@junction/coding-bus': 'domain',
  '@junction/run-bus': 'domain',
  '@junction/management-client': 'domain',
  '@junction/mcp-server': 'surface',
  '@junction/rest-api': 'surface',
  '@junction/webhooks': 'surface',
  '@junction/traces': 'surface',
  '@junction/web-ui': 'surface',
  '@junction/service-kit': 'kit',
  '@junction/cli': 'app',
  '@junction/api-server': 'app',
  '@junction/webhook-server': 'app',
  '@junction/bench': 'app',
  // Dev-only (jest preset, eslint config, fixtures): outside the layers, see checkTooling.
  '@junction/tooling': 'tooling',
});

/** The layers from the bottom up. */
const ORDER = ['base', 'domain', 'surface', 'kit', 'app'];

const CHAIN =
  'Imports only point down: base ← domain ← surface ← kit ← app; see docs/architecture.md.';

const A = {
  base: 'a base package',
  domain: 'a domain package',
  surface: 'a surface package',
  kit: 'the kit package',
  app: 'an app',
};

/** What to do instead, when a package reaches sideways within its own layer. */
const SIDEWAYS = {
  base: 'base packages import no other @junction package but @junction/errors; take what is needed as an argument.',
  domain:
    'among domain packages only @junction/agent-core may be imported, by the others; move the shared piece into agent-core or a base package.',
  surface:
    'surfaces do not import each other; move the shared piece down into a domain or base package, or compose the surfaces in service-kit or an app.',
  kit: 'there is one kit.',
  app: 'an app never imports another app; move the shared code into @junction/service-kit.',
};

/** Base and domain packages are plain TypeScript: HTTP and command-line frameworks live above them. */
const FRAMEWORKS = [/^express(\/|$)/, /^@oclif\//];

/** Folders of a package that ship and run; dev-only tooling may not be imported from them. */
const RUNTIME_FOLDERS = ['src', 'bin'];

const packageCache = new Map();

/** The package a folder belongs to: the nearest package.json above it (`{ root, name }`), or null. */
export function packageOf(dir) {
  if (packageCache.has(dir)) return packageCache.get(dir);
  let found = null;
  const file = path.join(dir, 'package.json');
  if (existsSync(file)) {
    let name = '';
    try {
      name = JSON.parse(readFileSync(file, 'utf8')).name ?? '';
    } catch {
      // An unreadable package.json still marks a package boundary.
    }
    found = { root: dir, name };
  } else {
    const parent = path.dirname(dir);
    found = parent === dir ? null : packageOf(parent);
  }
  packageCache.set(dir, found);
  return found;
}

/** `@junction/agent-core/runs` → `@junction/agent-core`; any other specifier → undefined. */
function junctionPackage(specifier) {
  const match = /^(@junction\/[^/]+)/.exec(specifier);
  return match?.[1];
}

/** The problem with `specifier` imported from `file` of package `own`, or undefined when it is allowed. */
export function layerProblem(own, file, specifier) {
  const layer = PACKAGE_LAYERS[own.name];

  if (specifier.startsWith('.')) {
    const target = path.resolve(path.dirname(file), specifier);
    if (target === own.root || target.startsWith(own.root + path.sep)) return undefined;
    const other = packageOf(path.dirname(target));
    const into = other?.name ? ` into ${other.name}` : '';
    const byName = other?.name?.startsWith('@junction/')
      ? ` (here ${JSON.stringify(`${other.name}/${path.relative(other.root, target).split(path.sep).join('/')}`)})`
      : '';
    return (
      `The relative import ${JSON.stringify(specifier)} climbs out of ${own.name}${into}. ` +
      `Import another package by its name${byName}, so its exports map and the layer rule apply.`
    );
  }

  if (FRAMEWORKS.some((re) => re.test(specifier)) && (layer === 'base' || layer === 'domain')) {
    return (
      `${own.name} is ${A[layer]} and stays plain TypeScript: it may not import ${specifier}. ` +
      'Take collaborators as arguments and leave HTTP and command lines to the surfaces and apps ' +
      '(express in rest-api, webhooks, mcp-server; oclif in the cli). ' +
      CHAIN
    );
  }

  const target = junctionPackage(specifier);
  if (target === undefined || target === own.name) return undefined;
  const targetLayer = PACKAGE_LAYERS[target];

  if (layer === undefined) {
    return (
      `${own.name} is not in the layer table, so its imports cannot be checked. ` +
      'Add it to PACKAGE_LAYERS in tooling/eslint/layer-rule.js (base, domain, surface, kit or app).'
    );
  }
  if (targetLayer === undefined) {
    return (
      `${target} is not in the layer table, so ${own.name} may not import it yet. ` +
      'Add it to PACKAGE_LAYERS in tooling/eslint/layer-rule.js (base, domain, surface, kit or app).'
    );
  }

  if (layer === 'tooling') {
    return (
      `@junction/tooling is dev tooling (jest preset, eslint config, fixtures) and may not import ` +
      `${target}: every package uses tooling, so tooling imports none of them. ` +
      'Keep the fixture self-contained, or move the test into the package it needs.'
    );
  }
  if (targetLayer === 'tooling') {
    const inPackage = path.relative(own.root, file).split(path.sep)[0];
    if (!RUNTIME_FOLDERS.includes(inPackage)) return undefined;
    return (
      `${own.name} may not import ${target} from ${inPackage}/: tooling is dev-only ` +
      '(fixtures, presets) and is not installed where the package runs. Import it from tests only.'
    );
  }

  const from = ORDER.indexOf(layer);
  const to = ORDER.indexOf(targetLayer);
  if (to < from) return undefined;
  if (to === from) {
    if (layer === 'domain' && target === '@junction/agent-core') return undefined;
    if (layer === 'base' && target === '@junction/errors') return undefined;
    return `${own.name} is ${A[layer]} and may not import ${target} (${targetLayer}): ${SIDEWAYS[layer]} ${CHAIN}`;
  }
  return (
    `${own.name} is ${A[layer]} and may not import ${target} (${targetLayer}). ${CHAIN} ` +
    'Move what is needed down a layer, or have the caller pass it in.'
  );
}

/** The string a module-reference node names, or undefined when it is not a plain string. */
function literal(node) {
  return node && node.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
}

const layers = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Imports between Junction packages only point down: base ← domain ← surface ← kit ← app',
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    if (!path.isAbsolute(file)) return {};
    const own = packageOf(path.dirname(file));
    if (!own?.name.startsWith('@junction/')) return {};

    function check(node, source) {
      const specifier = literal(source);
      if (specifier === undefined) return;
      const message = layerProblem(own, file, specifier);
      if (message !== undefined) context.report({ node: source, message });
    }

    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      'CallExpression[callee.type="Identifier"][callee.name="require"]': (node) =>
        check(node, node.arguments[0]),
      TSImportEqualsDeclaration: (node) => check(node, node.moduleReference?.expression),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
    };
  },
};

/** The ESLint plugin that carries the rule, registered as `junction` in the shared config. */
export const layerPlugin = { meta: { name: 'junction-layers' }, rules: { layers } };
