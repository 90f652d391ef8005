/**
 * bench/load-memory: where the memory of `load` goes (a diagnostic beside bench/load.ts, whose peak RSS
 * is the figure). Loads the cached large snapshot in this process and samples every 50 ms: VmRSS, the
 * JS heap and external memory, and DuckDB's duckdb_memory() by tag (in memory and spilled to temp),
 * then prints per load phase the peak of each; and each statement over 40 ms with RSS before/after.
 *
 *   npx tsx bench/load-memory.ts [MEMORY_LIMIT]
 *
 * Run under tsx, so RSS includes ~60 MB of tsx itself: compare phases and tags, not absolute peaks.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { loadSnapshots } from '../src/warehouse/loader.js';
import { largeSnapshot } from './_large-snapshot.js';

const limit = process.argv[2];
const t0 = performance.now();
const ms = (): number => Math.round(performance.now() - t0);

async function rssMb(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8');
  return Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024);
}

// The load opens its own instance: keep a handle on it to sample, and time its statements.
let instance: DuckDBInstance | undefined;
const create = DuckDBInstance.create.bind(DuckDBInstance);
DuckDBInstance.create = async (...args: Parameters<typeof create>) => {
  const made = await create(...args);
  const connect = made.connect.bind(made);
  made.connect = async () => {
    const conn = await connect();
    const run = conn.run.bind(conn) as (
      sql: string,
      ...rest: unknown[]
    ) => ReturnType<DuckDBConnection['run']>;
    conn.run = async (sql: string, ...rest: unknown[]) => {
      const started = performance.now();
      const before = await rssMb();
      const result = await run(sql, ...rest);
      if (performance.now() - started > 40)
        console.log(
          JSON.stringify({
            statement: sql.slice(0, 70).replace(/\s+/g, ' '),
            at_ms: Math.round(started - t0),
            ms: Math.round(performance.now() - started),
            rss_before: before,
            rss_after: await rssMb(),
          }),
        );
      return result;
    };
    return conn;
  };
  instance = made;
  return made;
};

type Peaks = Record<string, number>;
const phases = new Map<string, Peaks>();
let phase = 'start';
let probe: DuckDBConnection | undefined;
let sampling = false;
async function sample(): Promise<void> {
  if (sampling) return;
  sampling = true;
  try {
    const memory = process.memoryUsage();
    const values: Peaks = {
      rss: await rssMb(),
      js_heap: Math.round(memory.heapUsed / 1e6),
      js_external: Math.round(memory.external / 1e6),
    };
    if (instance) {
      probe ??= await instance.connect();
      const reader = await probe.runAndReadAll(
        'SELECT tag, memory_usage_bytes, temporary_storage_bytes FROM duckdb_memory()',
      );
      let total = 0;
      for (const [tag, used, temp] of reader.getRows()) {
        const mb = Math.round(Number(used) / 1e6);
        total += mb;
        if (mb > 0) values[String(tag)] = mb;
        if (Number(temp) > 0) values[`${String(tag)}_temp`] = Math.round(Number(temp) / 1e6);
      }
      values.duckdb_total = total;
    }
    const peaks = phases.get(phase) ?? {};
    for (const [key, value] of Object.entries(values)) peaks[key] = Math.max(peaks[key] ?? 0, value);
    phases.set(phase, peaks);
  } finally {
    sampling = false;
  }
}

const dir = await largeSnapshot();
const work = await mkdtemp(path.join(tmpdir(), 'airt-bench-load-memory-'));
const timer = setInterval(() => void sample(), 50);
try {
  await loadSnapshots(path.join(work, 'bench.duckdb'), [dir], {
    ...(limit ? { memoryLimit: limit } : {}),
    onProgress: (event) => {
      // 'table' events come before the trials: the last one names the phase the trial load runs in.
      phase = event.type === 'table' ? 'tables, then trials' : event.type;
    },
  });
  phase = 'closed';
  await sample();
} finally {
  clearInterval(timer);
  await rm(work, { recursive: true, force: true });
}
for (const [name, peaks] of phases) console.log(JSON.stringify({ phase: name, at: ms(), peak_mb: peaks }));
