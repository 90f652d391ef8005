/**
 * `npm run bench [-- name… [--flag …]]`: runs each benchmark (bench/<name>.ts) in its own process, one
 * after the other so they do not compete for the two cores, and prints every figure they report (JSON
 * lines) plus a summary table. Everything from the first argument that starts with `-` on is given to
 * each benchmark (`npm run bench -- load --rounds 5`, `npm run bench -- nightly-snapshot --quick`).
 * Benchmarks are not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const BENCH_TIME_LIMIT_MS = 15 * 60_000;
const available = readdirSync(benchDir)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && !file.startsWith('_'))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();
const args = process.argv.slice(2);
const firstFlag = args.findIndex((arg) => arg.startsWith('-'));
const wanted = firstFlag < 0 ? args : args.slice(0, firstFlag);
const flags = firstFlag < 0 ? [] : args.slice(firstFlag);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}`);
  process.exit(2);
}

const figures: Record<string, unknown>[] = [];
for (const name of wanted.length > 0 ? wanted : available) {
  console.error(`\n== bench/${name}.ts`);
  const code = await runBench(name);
  if (code !== 0) {
    console.error(`bench/${name}.ts exited with ${code}`);
    process.exitCode = 1;
  }
}
console.error('\n== figures');
for (const figure of figures) console.log(JSON.stringify(figure));

function runBench(name: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(benchDir, `${name}.ts`), ...flags], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (!line) continue;
        console.error(line);
        try {
          figures.push({ bench: name, ...(JSON.parse(line) as Record<string, unknown>) });
        } catch {
          // Not a figure line; already echoed.
        }
      }
    });
    // A benchmark that hangs (e.g. waiting on a child that never prints its URL) must not hang the run.
    const timer = setTimeout(() => {
      console.error(`bench/${name}.ts ran over ${BENCH_TIME_LIMIT_MS / 60_000} minutes; stopping it`);
      child.kill('SIGTERM');
    }, BENCH_TIME_LIMIT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}
