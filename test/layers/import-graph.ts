/**
 * The layer rule of ARCHITECTURE.md as code: reads every relative import of a source tree (static,
 * `export … from` and dynamic `import()`), maps each file to its layer, and reports imports against
 * the order and cycles between layers. Type-only imports count too: a layer that needs another's
 * types depends on it.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Layers, lowest first. A layer may import its own modules and any layer of a lower rank. Leaf
 * modules (rank 0) import only leaves; the simulator stands beside everything (below).
 */
export const LAYER_RANK: Readonly<Record<string, number>> = {
  leaf: 0,
  api: 1,
  snapshot: 2,
  triage: 3,
  warehouse: 4,
  metrics: 5,
  diff: 6,
  report: 7,
  // OSCAL assessment results: an output beside the report, read from the warehouse and the diff's lookups.
  oscal: 7,
  pipeline: 8,
  // The local viewer (serve): reads the warehouse through the metrics, diff and report layers, beside the pipeline.
  viewer: 8,
  demo: 9,
  index: 9,
  cli: 10,
};

/** Top-level files and folders that are leaves: shared helpers that import nothing above them. */
export const LEAVES: readonly string[] = [
  'errors',
  'version',
  'text-safety',
  'number-format',
  'sentence',
  'csv-text',
  'nearest-name',
  'output-file',
  'process-alive',
  // A lock that records its holder, so a killed holder's lock is taken over: the run and journal locks.
  'holder-lock',
  // A server's failure to listen as one line: the viewer's and the simulator's.
  'listen-error',
  'taxonomy',
  // SSH signatures (SSHSIG) over node:crypto: a leaf so the pipeline and verify can share it.
  'signing',
];

/**
 * The simulator stands beside the layers: it speaks the API contract (api, severity, leaves) and only
 * the demo and the CLI start it. The public entry does not export it (it has its own subpath).
 */
const SIMULATOR_MAY_IMPORT = new Set(['leaf', 'api']);
const MAY_IMPORT_SIMULATOR = new Set(['demo', 'cli']);

/** The layer of a file, from its path relative to the source root: `snapshot/journal.ts` → `snapshot`. */
export function layerOf(relativeFile: string): string {
  const [first = '', ...rest] = relativeFile.split(/[\\/]/u);
  const name = rest.length === 0 ? first.replace(/\.ts$/u, '') : first;
  if (LEAVES.includes(name)) return 'leaf';
  // The severity scale is the API contract's enum with its order: it sits with the api layer.
  if (name === 'severity') return 'api';
  return name;
}

/** One import from a file of one layer into a file of another. */
export interface LayerImport {
  from: string;
  to: string;
  fromLayer: string;
  toLayer: string;
}

const IMPORT_SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gmu;

/** Every relative import between files of different layers under `root`. */
export async function readLayerImports(root: string): Promise<LayerImport[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
  const imports: LayerImport[] = [];
  for (const from of files) {
    const text = await readFile(path.join(root, from), 'utf8');
    for (const [, specifier = ''] of text.matchAll(IMPORT_SPECIFIERS)) {
      const to = path
        .relative(root, path.resolve(root, path.dirname(from), specifier))
        .replace(/\.js$/u, '.ts');
      if (to.startsWith('..')) continue;
      const fromLayer = layerOf(from);
      const toLayer = layerOf(to);
      if (fromLayer !== toLayer) imports.push({ from, to, fromLayer, toLayer });
    }
  }
  return imports;
}

/** Why an import breaks the layer order, or null when it is allowed. */
export function layerViolation(edge: LayerImport): string | null {
  const { fromLayer, toLayer } = edge;
  if (fromLayer === 'simulator') {
    return SIMULATOR_MAY_IMPORT.has(toLayer)
      ? null
      : 'the simulator imports only the API contract and leaves';
  }
  if (toLayer === 'simulator') {
    return MAY_IMPORT_SIMULATOR.has(fromLayer) ? null : 'only the demo and the CLI start the simulator';
  }
  const from = LAYER_RANK[fromLayer];
  const to = LAYER_RANK[toLayer];
  if (from === undefined) return `${fromLayer} is not a known layer (add it to ARCHITECTURE.md)`;
  if (to === undefined) return `${toLayer} is not a known layer (add it to ARCHITECTURE.md)`;
  return to < from ? null : `${fromLayer} may not import ${toLayer} (${toLayer} is not below it)`;
}

/** Cycles between layers, each as the layer path `a → b → a` (one per strongly connected set). */
export function layerCycles(imports: readonly LayerImport[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { fromLayer, toLayer } of imports) {
    if (!next.has(fromLayer)) next.set(fromLayer, new Set());
    next.get(fromLayer)?.add(toLayer);
  }
  const cycles: string[] = [];
  const reported = new Set<string>();
  for (const start of [...next.keys()].sort()) {
    if (reported.has(start)) continue;
    // Breadth-first search for the shortest way back to `start`.
    const previous = new Map<string, string>();
    const queue = [start];
    let found = false;
    while (queue.length > 0 && !found) {
      const layer = queue.shift() ?? '';
      for (const target of [...(next.get(layer) ?? [])].sort()) {
        if (target === start) {
          const loop = [start];
          for (let at = layer; at !== start; at = previous.get(at) ?? start) loop.splice(1, 0, at);
          loop.push(start);
          for (const member of loop) reported.add(member);
          cycles.push(loop.join(' → '));
          found = true;
          break;
        }
        if (!previous.has(target)) {
          previous.set(target, layer);
          queue.push(target);
        }
      }
    }
  }
  return cycles;
}

/** Every problem of the tree under `root`: imports against the order, then layer cycles. */
export async function checkLayers(root: string): Promise<string[]> {
  const imports = await readLayerImports(root);
  const problems = imports.flatMap((edge) => {
    const why = layerViolation(edge);
    return why === null ? [] : [`${edge.from} → ${edge.to}: ${why}`];
  });
  return [...problems, ...layerCycles(imports).map((cycle) => `layer cycle: ${cycle}`)];
}
