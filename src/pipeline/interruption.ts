/**
 * The one line an interrupted run ends with: which step it stopped in, what state that left (is the
 * snapshot loaded? which snapshot will the next run compare with?) and what to do now. An interrupted
 * run never becomes the baseline (run-baseline.ts).
 */
import { interruptionText } from '../errors.js';
import type { RunState } from './run-state.js';
import type { RunInterruption, StepName } from './run-summary.js';

const STEP_ORDER: readonly StepName[] = [
  'snapshot',
  'verify',
  'load',
  'diff',
  'reports',
  'gates',
  'bundle',
  'retention',
];

/** Describes the interruption of a run that was stopped by its signal; null if it was not. */
export function describeInterruption(state: RunState): RunInterruption | null {
  const { signal } = state.effects;
  const step = state.interruptedDuring;
  if (signal === undefined || step === null) return null;
  const notRun = STEP_ORDER.filter((name) => !state.steps.some((record) => record.name === name));
  return { step, reason: interruptionText(signal), message: stateLeft(state, notRun) };
}

function stateLeft(state: RunState, notRun: readonly StepName[]): string {
  const snapshotId = state.snapshot?.snapshotId ?? null;
  if (snapshotId === null) {
    return (
      'no snapshot was finished or loaded, so the database and the baseline of the next run are ' +
      'unchanged; run again to take a new snapshot.'
    );
  }
  const skipped = notRun.length > 0 ? `; not run: ${notRun.join(', ')}` : '';
  // Only a run that finished every step becomes the baseline (run-baseline.ts); kept for completeness.
  if (state.baselineRecorded) {
    return (
      `every step finished, so snapshot ${snapshotId} is the baseline of the next run${skipped}; ` +
      'nothing needs repair: run again when convenient.'
    );
  }
  const loadRan = state.steps.some((record) => record.name === 'load');
  const loaded = state.succeeded('load')
    ? 'is loaded into the database'
    : loadRan
      ? 'may be partly loaded into the database'
      : 'was not loaded';
  const recorded = state.recordedBaseline;
  const baseline =
    recorded === undefined
      ? 'the baseline of the last complete run'
      : recorded === null
        ? 'no snapshot (every open finding counts as new)'
        : `snapshot ${recorded}`;
  return (
    `snapshot ${snapshotId} ${loaded} but the run did not finish, so it is not the baseline: the next ` +
    `run's diff and gates still compare with ${baseline}${skipped}; run again to gate a new snapshot.`
  );
}
