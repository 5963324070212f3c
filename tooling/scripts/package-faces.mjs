// The faces of the workspace's packages: every name a package exports (each entry of its
// package.json `exports`), and which of them another package, app or benchmark imports. A name
// only its own package uses is not part of its face (issue 33 §2).
//
//   node tooling/scripts/package-faces.mjs            a table per package, the unused names, exit 0
//   node tooling/scripts/package-faces.mjs --check    exit 1 listing every unused export
//   node tooling/scripts/package-faces.mjs --json     the figures as JSON
//
// Read syntactically with TypeScript's parser: named imports and re-exports, `import type`,
// `import('…')` types, `const { a } = await import('…')`, and `ns.a` of `import * as ns` or
// `const ns = await import('…')`. A name is used when any file outside its package names it,
// or a TypeScript example in a README or docs/ page does (the documented face). A type named in
// the declaration of a used name stays too: a caller must be able to write what it passes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const SKIP = new Set(['node_modules', 'dist', 'reports', '.turbo', 'coverage']);

/** The workspace packages with an `exports` map: name, folder, entries (subpath → source file). */
function workspacePackages() {
  const found = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(path.join(root, group))) {
      const dir = path.join(root, group, name);
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      const entries = new Map();
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        const built = typeof target === 'string' ? target : (target.default ?? target.import);
        // An entry this script cannot map would leave its names unchecked: refused instead.
        if (typeof built !== 'string' || !built.startsWith('./dist/') || !built.endsWith('.js')) {
          throw new Error(
            `${manifest.name}: exports["${subpath}"] is not a ./dist/….js file this check can map to its source`,
          );
        }
        const source = built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
        entries.set(subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`, {
          file: path.join(dir, source),
        });
      }
      if (entries.size > 0) found.push({ name: manifest.name, dir, entries });
    }
  }
  return found;
}

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

const isExported = (node) =>
  (ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined)?.some(
    (m) => m.kind === ts.SyntaxKind.ExportKeyword,
  ) ?? false;

/** The names an entry file exports (its own declarations and what it re-exports by name). */
function exportedNames(file) {
  const names = new Set();
  for (const node of parse(file).statements) {
    // `export *` and `export default` name nothing here: a face is listed name by name.
    if (
      (ts.isExportDeclaration(node) && !node.exportClause) ||
      (ts.isExportDeclaration(node) &&
        node.exportClause &&
        ts.isNamespaceExport(node.exportClause)) ||
      ts.isExportAssignment(node) ||
      (isExported(node) &&
        (ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined)?.some(
          (m) => m.kind === ts.SyntaxKind.DefaultKeyword,
        ))
    ) {
      throw new Error(
        `${path.relative(root, file)}: export its names one by one (no export *, export * as, export default), so what it exports can be checked`,
      );
    }
    if (ts.isExportDeclaration(node)) {
      if (node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const element of node.exportClause.elements) names.add(element.name.text);
      }
    } else if (isExported(node)) {
      if (ts.isVariableStatement(node)) {
        for (const d of node.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) names.add(d.name.text);
        }
      } else if (node.name && ts.isIdentifier(node.name)) names.add(node.name.text);
    }
  }
  return names;
}

/** Every source file of the workspace outside `dir` (other packages, apps, bench, tooling). */
function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    const stat = statSync(full);
    if (stat.isDirectory()) yield* sourceFiles(full);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) yield full;
  }
}

/** The `@junction/…` specifier of an import call `import('…')`, if `node` is one. */
function importCallSpecifier(node) {
  return ts.isCallExpression(node) &&
    node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    node.arguments[0] &&
    ts.isStringLiteral(node.arguments[0])
    ? node.arguments[0].text
    : undefined;
}

/** Calls `use(specifier, name)` for every name `source` takes from a `@junction/…` entry. */
function importsOf(source, use) {
  /** Namespace bindings (`import * as ns`, `const ns = await import(…)`, `const ns = { ...(await import(…)), … }`) → their specifiers. */
  const namespaces = new Map();
  const bind = (name, specifier) =>
    namespaces.set(name, [...(namespaces.get(name) ?? []), specifier]);
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const specifier = node.moduleSpecifier.text;
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      const named = ts.isImportDeclaration(node) ? clause?.namedBindings : node.exportClause;
      if (named && (ts.isNamedImports(named) || ts.isNamedExports(named))) {
        for (const e of named.elements) use(specifier, (e.propertyName ?? e.name).text);
      } else if (named && ts.isNamespaceImport(named)) {
        bind(named.name.text, specifier);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal) && node.qualifier) {
        const first = ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.left;
        if (ts.isIdentifier(first)) use(literal.text, first.text);
      }
    } else if (ts.isVariableDeclaration(node) && node.initializer) {
      const call = ts.isAwaitExpression(node.initializer)
        ? node.initializer.expression
        : node.initializer;
      const specifier = importCallSpecifier(call);
      if (specifier !== undefined) {
        if (ts.isObjectBindingPattern(node.name)) {
          for (const e of node.name.elements) {
            const key = e.propertyName ?? e.name;
            if (ts.isIdentifier(key)) use(specifier, key.text);
          }
        } else if (ts.isIdentifier(node.name)) bind(node.name.text, specifier);
      } else if (ts.isObjectLiteralExpression(node.initializer) && ts.isIdentifier(node.name)) {
        // `{ ...(await import('a')), ...(await import('b')) }`: one namespace of both.
        for (const property of node.initializer.properties) {
          if (!ts.isSpreadAssignment(property)) continue;
          let spread = property.expression;
          while (ts.isParenthesizedExpression(spread)) spread = spread.expression;
          if (ts.isAwaitExpression(spread)) spread = spread.expression;
          const spreadSpecifier = importCallSpecifier(spread);
          if (spreadSpecifier !== undefined) bind(node.name.text, spreadSpecifier);
        }
      }
    } else if (
      ts.isPropertyAccessExpression(node) &&
      ts.isParenthesizedExpression(node.expression) &&
      ts.isAwaitExpression(node.expression.expression)
    ) {
      // (await import('…')).name
      const specifier = importCallSpecifier(node.expression.expression.expression);
      if (specifier !== undefined) use(specifier, node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (namespaces.size > 0) {
    const accesses = (node) => {
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
        for (const specifier of namespaces.get(node.expression.text) ?? []) {
          use(specifier, node.name.text);
        }
      } else if (ts.isQualifiedName(node) && ts.isIdentifier(node.left)) {
        for (const specifier of namespaces.get(node.left.text) ?? [])
          use(specifier, node.right.text);
      }
      ts.forEachChild(node, accesses);
    };
    accesses(source);
  }
}

/** The TypeScript examples of the READMEs and docs/ pages, as sources of their own. */
function* documentedExamples() {
  const pages = [
    path.join(root, 'README.md'),
    ...readdirSync(path.join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => path.join(root, 'docs', name)),
  ];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(path.join(root, group))) {
      pages.push(path.join(root, group, name, 'README.md'));
    }
  }
  for (const page of pages) {
    let text;
    try {
      text = readFileSync(page, 'utf8');
    } catch {
      continue;
    }
    for (const [, code] of text.matchAll(/```(?:ts|typescript|js|mjs)\n([\s\S]*?)```/g)) {
      yield ts.createSourceFile(`${page}.example.ts`, code, ts.ScriptTarget.Latest, true);
    }
  }
}

/** The declarations of `name` that `file` exports, following re-exports within the package. */
function declarationsOf(file, name, seen = new Set()) {
  const key = `${file}#${name}`;
  if (seen.has(key)) return [];
  seen.add(key);
  let source;
  try {
    source = parse(file);
  } catch {
    return [];
  }
  const found = [];
  for (const node of source.statements) {
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
      for (const e of node.exportClause.elements) {
        if (e.name.text !== name) continue;
        const local = (e.propertyName ?? e.name).text;
        const target = node.moduleSpecifier
          ? path.resolve(path.dirname(file), node.moduleSpecifier.text).replace(/\.js$/, '.ts')
          : file;
        found.push(...declarationsOf(target, local, seen));
      }
    } else if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.name.text === name) found.push(d);
      }
    } else if (node.name && ts.isIdentifier(node.name) && node.name.text === name) {
      found.push(node);
    }
  }
  return found;
}

/** The type names a declaration's signature mentions (parameters, result, members, fields). */
function typeNamesIn(declaration) {
  const names = new Set();
  const visit = (node) => {
    if (ts.isTypeReferenceNode(node)) {
      const first = ts.isIdentifier(node.typeName) ? node.typeName : node.typeName.left;
      if (ts.isIdentifier(first)) names.add(first.text);
    } else if (ts.isExpressionWithTypeArguments(node) && ts.isIdentifier(node.expression)) {
      names.add(node.expression.text);
    } else if (ts.isTypeQueryNode(node) && ts.isIdentifier(node.exprName)) {
      names.add(node.exprName.text);
    }
    // A body is not a signature.
    if (ts.isBlock(node)) return;
    ts.forEachChild(node, visit);
  };
  if (ts.isVariableDeclaration(declaration)) {
    if (declaration.type) visit(declaration.type);
    // `const X = errorClass<Code>(…)`: the type arguments are part of what it is.
    else if (declaration.initializer && ts.isCallExpression(declaration.initializer)) {
      for (const t of declaration.initializer.typeArguments ?? []) visit(t);
    }
  } else visit(declaration);
  return names;
}

/** Per package entry: what it exports, and which of them other packages use. */
export function packageFaces() {
  const packages = workspacePackages();
  const entries = new Map();
  for (const pkg of packages) {
    for (const [specifier, entry] of pkg.entries) {
      entries.set(specifier, {
        package: pkg.name,
        dir: pkg.dir,
        file: entry.file,
        exported: exportedNames(entry.file),
        used: new Set(),
      });
    }
  }
  for (const file of sourceFiles(root)) {
    importsOf(parse(file), (specifier, name) => {
      const entry = entries.get(specifier);
      // A package's own files do not make its face.
      if (entry && !file.startsWith(`${entry.dir}${path.sep}`)) entry.used.add(name);
    });
  }
  for (const example of documentedExamples()) {
    importsOf(example, (specifier, name) => entries.get(specifier)?.used.add(name));
  }
  // The types the used names' signatures mention, and theirs in turn.
  for (const entry of entries.values()) {
    const pending = [...entry.used];
    while (pending.length > 0) {
      const name = pending.pop();
      for (const declaration of declarationsOf(entry.file, name)) {
        for (const type of typeNamesIn(declaration)) {
          if (entry.exported.has(type) && !entry.used.has(type)) {
            entry.used.add(type);
            pending.push(type);
          }
        }
      }
    }
  }
  return [...entries].map(([specifier, e]) => ({
    specifier,
    file: path.relative(root, e.file),
    exported: e.exported.size,
    unused: [...e.exported].filter((name) => !e.used.has(name)).sort(),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const faces = packageFaces();
  const exported = faces.reduce((n, f) => n + f.exported, 0);
  const unused = faces.reduce((n, f) => n + f.unused.length, 0);
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ exported, unused, entries: faces }, null, 2)}\n`);
  } else {
    for (const face of faces.filter((f) => f.unused.length > 0)) {
      process.stdout.write(
        `${face.specifier} (${face.file}): ${face.unused.length} of ${face.exported} unused\n  ${face.unused.join(', ')}\n`,
      );
    }
    process.stdout.write(`${exported} exported names, ${unused} used by no other package\n`);
  }
  if (process.argv.includes('--check') && unused > 0) {
    process.stderr.write(
      'Export only what another package imports: remove the names above from their entry (a test of the package imports them from their own module).\n',
    );
    process.exit(1);
  }
}
