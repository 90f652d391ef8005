/**
 * Runs the known slow test files first. Without a cache (a clean CI checkout) vitest starts the
 * largest files first, and several slow but short files (the demo, the kill loops) then started in
 * the last minute and kept one worker busy alone: on 2 workers the suite took ~50 s longer than its
 * total work divided by two. The list is ordered by measured duration (`.ci/run`, 2026-11-24); a file
 * missing from it only runs later, never not at all.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOW_FIRST = [
  'test/demo/demo.test.ts',
  'test/metrics/figures.test.ts',
  'test/pipeline/run-baseline.test.ts',
  'test/metrics/agreement.test.ts',
  'test/warehouse/prune.test.ts',
  'test/pipeline/risk-acceptance-expiry.test.ts',
  'test/warehouse/load-concurrency.test.ts',
  'test/pipeline/run-baseline-kill.test.ts',
  'test/snapshot/share-interrupt.test.ts',
  'test/viewer/viewer-http.test.ts',
  'test/triage/interrupt.test.ts',
  'test/viewer/viewer-browser.test.ts',
  'test/warehouse/row-sets-kill.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = SLOW_FIRST.findIndex((file) => spec.moduleId.endsWith(file));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    // A stable sort: files outside the list keep vitest's own order.
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
