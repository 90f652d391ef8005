import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/slow-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: integration tests start simulators and DuckDB; keep parallelism modest.
    maxWorkers: 2,
    env: { TZ: 'UTC' },
    setupFiles: ['test/setup.ts'],
    sequence: { sequencer: SlowFirstSequencer },
    // The JSON results let .ci/run print a plain 'N passed, N failed' closing line.
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest-results.json' }]],
  },
});
