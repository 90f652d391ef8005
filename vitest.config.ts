import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: integration tests start simulators and DuckDB; keep parallelism modest.
    maxWorkers: 2,
    // One worker process per worker, reused from file to file: with isolation each of the ~135 files
    // paid a fresh process and a fresh import of DuckDB, Vega and the sources (~1 s a file, ~150 s of
    // CI worker time). Tests share no module state (no vi.mock, no process.env edits; src keeps only
    // caches keyed by connection or constant), setup files still run per file (temp dirs are removed).
    isolate: false,
    env: { TZ: 'UTC' },
    setupFiles: ['test/setup.ts'],
    sequence: { sequencer: SlowFirstSequencer },
    // The JSON results let .ci/run print a plain 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest-results.json' }]],
  },
});
