/**
 * Imports point one way: lib <- remap <- operators <- connectors <- bin and the root index.ts;
 * connectors never import each other; no file takes part in an import cycle. The graph comes from
 * the TypeScript parser, so type-only imports, re-exports and `import()` count, and comments and
 * strings do not. And the engine names no component: no string literal in lib/ is a type token
 * of the catalog, no object literal there is a table keyed by them; the engine asks a
 * component's definition what it can do instead.
 */
import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { components } from '../connectors/index.js';

/** Repository-relative posix path -> the repository-relative files it imports (relative specifiers only). */
type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every module specifier of a TypeScript source: imports, re-exports, `import()`, `import('…')` types. */
function specifiers(source: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      out.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      out.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** The repository file a relative specifier names: NodeNext writes `.js` for a `.ts` source. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined; // packages and node: built-ins
  return posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.js$/, '.ts');
}

/** Builds the graph from sources keyed by repository-relative path. */
function importGraph(sources: ReadonlyMap<string, string>): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const targets = specifiers(text).map((s) => resolveSpecifier(file, s)).filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Layers from the bottom; a file may import its own layer and those below it. Scripts may import anything. */
const LAYERS = ['lib', 'remap', 'operators', 'connectors', 'top'] as const;
type Layer = (typeof LAYERS)[number] | 'scripts';

function layerOf(file: string): Layer {
  const top = file.split('/')[0]!;
  if (top === 'scripts') return 'scripts';
  if (top === 'bin' || file === 'index.ts') return 'top';
  return (LAYERS as readonly string[]).includes(top) ? (top as Layer) : 'top';
}

/** `connectors/sinks/http` for any file in that component's folder; undefined elsewhere. */
function componentFolder(file: string): string | undefined {
  const m = /^connectors\/(sources|transforms|sinks)\/([^/]+)\//.exec(file);
  return m ? `connectors/${m[1]}/${m[2]}` : undefined;
}

/** Imports that break the layering or tie one connector (or connectors/shared) to another connector. */
function layerViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(from);
    for (const to of targets) {
      const toLayer = layerOf(to);
      if (fromLayer !== 'scripts' && (toLayer === 'scripts' || LAYERS.indexOf(toLayer) > LAYERS.indexOf(fromLayer))) {
        out.push(`${from} -> ${to}: ${fromLayer} must not import ${toLayer}`);
        continue;
      }
      const target = componentFolder(to);
      if (!target || target === componentFolder(from)) continue;
      if (componentFolder(from)) out.push(`${from} -> ${to}: connectors never import each other; move shared code to connectors/shared/`);
      else if (from.startsWith('connectors/shared/')) out.push(`${from} -> ${to}: connectors/shared/ must not depend on one connector`);
    }
  }
  return out;
}

/**
 * One cycle per strongly connected component of more than one file (or a file importing itself),
 * as a path `a -> b -> … -> a`. Tarjan's algorithm; files are visited in sorted order so the
 * report is stable.
 */
function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const edges = (f: string) => (graph.get(f) ?? []).filter((t) => graph.has(t));
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || edges(v).includes(v)) components.push(component.sort());
  };
  for (const f of [...graph.keys()].sort()) if (!index.has(f)) connect(f);
  return components.map((c) => cycleThrough(c[0]!, new Set(c), edges));
}

/** A shortest path from `start` back to itself inside one strongly connected component. */
function cycleThrough(start: string, members: ReadonlySet<string>, edges: (f: string) => string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of edges(v).filter((t) => members.has(t)).sort()) {
      if (w === start) {
        const path: string[] = [];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start]; // unreachable for a strongly connected component
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['lib', 'operators', 'connectors', 'remap', 'bin', 'scripts'];

function listSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) listSources(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function repositoryGraph(): ImportGraph {
  const files = [join(root, 'index.ts'), ...SOURCE_DIRS.flatMap((d) => listSources(join(root, d)))];
  return importGraph(new Map(files.map((f) => [relative(root, f).split('\\').join('/'), readFileSync(f, 'utf8')])));
}

describe('architecture: import directions', () => {
  describe('the checker', () => {
    it('reads every kind of import, and none from comments or strings', () => {
      const text = [
        `// import { a } from './commented.js';`,
        `/* export * from './block.js' */`,
        `import type { T } from './type-only.js';`,
        `import { type U, v } from '../mixed.js';`,
        `import './side-effect.js';`,
        `import { readFileSync } from 'node:fs';`,
        `export { w } from './re-export.js';`,
        `export type { X } from './type-re-export.js';`,
        `export * as ns from './star.js';`,
        `const s = "import { z } from './in-string.js'";`,
        `type M = typeof import('./import-type.js');`,
        `const m = await import('./dynamic.js');`,
      ].join('\n');
      expect(specifiers(text)).to.deep.equal([
        './type-only.js', '../mixed.js', './side-effect.js', 'node:fs', './re-export.js',
        './type-re-export.js', './star.js', './import-type.js', './dynamic.js',
      ]);
      expect(importGraph(new Map([['lib/config/load.ts', text]])).get('lib/config/load.ts')).to.include.members([
        'lib/config/type-only.ts', 'lib/mixed.ts', 'lib/config/dynamic.ts',
      ]).and.not.include('node:fs');
    });

    it('finds a planted backward import and a planted connector-to-connector import', () => {
      const graph = importGraph(new Map([
        ['lib/event.ts', `import type { Tokenizer } from '../operators/transforms/tokenizer/index.js';`],
        ['remap/compile.ts', `import { x } from '../lib/event.js';`],
        ['operators/transforms/tokenizer/index.ts', `import { compile } from '../../../remap/compile.js';`],
        ['connectors/sinks/http/sink.ts', `import { retry } from '../../shared/http/retry.js';\nimport { x } from '../socket/encoder.js';`],
        ['connectors/sinks/socket/encoder.ts', `import { x } from '../../../operators/transforms/tokenizer/index.js';`],
        ['connectors/shared/http/retry.ts', `import { y } from '../../sources/socket/source.js';`],
        ['connectors/sources/socket/source.ts', `import { z } from './decode.js';`],
        ['bin/weir.ts', `import { catalog } from '../connectors/index.js';`],
        ['scripts/bench/x.ts', `import { catalog } from '../../bin/weir.js';`],
      ]));
      expect(layerViolations(graph)).to.deep.equal([
        'lib/event.ts -> operators/transforms/tokenizer/index.ts: lib must not import operators',
        'connectors/sinks/http/sink.ts -> connectors/sinks/socket/encoder.ts: connectors never import each other; move shared code to connectors/shared/',
        'connectors/shared/http/retry.ts -> connectors/sources/socket/source.ts: connectors/shared/ must not depend on one connector',
      ]);
    });

    it('finds a planted cycle and reports its path', () => {
      const graph = importGraph(new Map([
        ['lib/a.ts', `import { b } from './b.js';`],
        ['lib/b.ts', `import type { C } from './sub/c.js';`],
        ['lib/sub/c.ts', `export { a } from '../a.js';\nimport { d } from './d.js';`],
        ['lib/sub/d.ts', `import { e } from 'rxjs';`],
        ['lib/self.ts', `const self = await import('./self.js');`],
      ]));
      expect(importCycles(graph)).to.deep.equal([
        ['lib/a.ts', 'lib/b.ts', 'lib/sub/c.ts', 'lib/a.ts'],
        ['lib/self.ts', 'lib/self.ts'],
      ]);
      expect(importCycles(new Map([...graph].filter(([f]) => f !== 'lib/sub/c.ts' && f !== 'lib/self.ts')))).to.deep.equal([]);
    });
  });

  describe('the source tree', () => {
    const graph = repositoryGraph();

    it('is read whole', () => {
      expect(graph.size).to.be.greaterThan(100);
      expect(graph.get('index.ts')).to.include('lib/event.ts');
      expect(graph.get('bin/weir.ts')).to.have.length.greaterThan(0);
    });

    it('imports point one way, and connectors do not import each other', () => {
      expect(layerViolations(graph)).to.deep.equal([]);
    });

    it('every relative import names a file that exists', () => {
      // benchmarks start the test peers too (spec/peers), which lie outside the source tree
      const peer = (t: string) => t.startsWith('spec/peers/') && existsSync(join(root, t));
      const missing = [...graph].flatMap(([from, targets]) => targets.filter((t) => !graph.has(t) && !t.endsWith('.json') && !peer(t)).map((t) => `${from} -> ${t}`));
      expect(missing).to.deep.equal([]);
    });

    it('has no import cycles', () => {
      expect(importCycles(graph).map((c) => c.join(' -> '))).to.deep.equal([]);
    });
  });
});

/** One place lib/ names a component type token: `file:line 'token' (context)`. */
type TokenUse = { readonly file: string; readonly line: number; readonly token: string; readonly context: string };

/**
 * Where a source names a type token: string literals exactly equal to one (comparisons, switch
 * cases, sets, literal types, element access), and object literals with two or more property names
 * that are tokens (a table keyed by component type). Comments, import specifiers (`node:http`),
 * template texts and longer strings (`http://`) do not count.
 */
function tokenUses(file: string, source: string, tokens: ReadonlySet<string>): TokenUse[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const out: TokenUse[] = [];
  const use = (node: ts.Node, token: string, context: ts.Node) =>
    out.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, token, context: context.getText(sf).replace(/\s+/g, ' ').slice(0, 80) });
  const propertyName = (p: ts.ObjectLiteralElementLike): string | undefined =>
    p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
  const visit = (node: ts.Node): void => {
    const isSpecifier = node.parent && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent) || ts.isExternalModuleReference(node.parent));
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && tokens.has(node.text) && !isSpecifier) {
      if (!(ts.isPropertyAssignment(node.parent) && node.parent.name === node)) use(node, node.text, node.parent);
    } else if (ts.isObjectLiteralExpression(node)) {
      const keyed = node.properties.filter((p) => tokens.has(propertyName(p) ?? ''));
      if (keyed.length >= 2) for (const p of keyed) use(p, propertyName(p)!, p);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every `type` and alias of the catalog. */
const TYPE_TOKENS: ReadonlySet<string> = new Set(components.flatMap((c) => [c.type, ...(c.aliases ?? [])]));

/**
 * Literals in lib/ that equal a type token for a reason of their own, by `file 'token'`. Each must
 * still occur (a stale entry fails), so the list stays as short as the code needs.
 */
const TOKEN_EXCEPTIONS: Readonly<Record<string, string>> = {
  "lib/codecs/gelf.ts 'file'": 'a GELF field name (the source file of a message), not the file sink',
  "lib/config/enrichment-tables.ts 'file'": 'the type of an enrichment table (Vector\'s `type = "file"` tables), not a component',
  "lib/codecs/decoding.ts 'syslog'": 'the codec name (`decoding.codec = "syslog"`, as Vector names it), not the syslog source',
  "lib/codecs/syslog.ts 'syslog'": 'a facility name (code 5, RFC 5424 table 1), not the syslog source',
};

/** Every lib/ source (TypeScript, and the JavaScript served to browsers). */
function libSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) libSources(p, out);
    else if ((name.endsWith('.ts') && !name.endsWith('.d.ts')) || name.endsWith('.js')) out.push(p);
  }
  return out;
}

describe('architecture: the engine names no component', () => {
  it('the token list covers the catalog, aliases included', () => {
    expect(TYPE_TOKENS.size).to.be.greaterThan(components.length);
    for (const t of ['socket', 'http', 'remap', 'filter', 'reduce', 'loki']) expect(TYPE_TOKENS.has(t), t).to.equal(true);
  });

  it('the checker finds planted literals and type-keyed tables, and ignores comments, imports and longer strings', () => {
    const text = [
      `import { request } from 'node:http';`,
      `import type { X } from './http';`,
      `// only 'socket' sources`,
      `const url = 'http://example.com';`,
      `const t = \`\${kind} http\`;`,
      `if (c.def.type === 'socket') go();`,
      `switch (type) { case 'remap': break; }`,
      `const STATELESS = new Set(['filter']);`,
      `type K = 'reduce';`,
      `const byType = { socket: ['a'], reduce: ['b'] };`,
      `const one = { file: path, mode: 1 };`,
      `const opts = { 'http': 1, proxy: 2 };`,
    ].join('\n');
    expect(tokenUses('lib/x.ts', text, TYPE_TOKENS).map((u) => `${u.line} ${u.token}`)).to.deep.equal([
      '6 socket', '7 remap', '8 filter', '9 reduce', '10 socket', '10 reduce',
    ]);
  });

  it('no string literal in lib/ equals a type token, but for the listed exceptions', () => {
    const uses = libSources(join(root, 'lib')).flatMap((f) => tokenUses(relative(root, f).split('\\').join('/'), readFileSync(f, 'utf8'), TYPE_TOKENS));
    const key = (u: TokenUse) => `${u.file} '${u.token}'`;
    expect(uses.filter((u) => !(key(u) in TOKEN_EXCEPTIONS)).map((u) => `${u.file}:${u.line} '${u.token}' in ${u.context}`)).to.deep.equal([]);
    expect(Object.keys(TOKEN_EXCEPTIONS).filter((k) => !uses.some((u) => key(u) === k)), 'stale exceptions').to.deep.equal([]);
  });
});
