/**
 * When a run becomes the gated baseline (gated-baseline.ts) that the next run's diff, gates and
 * executive "Since last snapshot" compare with: only after EVERY step succeeded on a COMPLETE snapshot.
 *
 * Anything less would let findings slip past the gates. A snapshot of an unreachable service (or a
 * partial one) as baseline makes the next healthy run call everything it lacked "new" — or, once the
 * gaps fill in, hides nothing but trips on noise; a run whose reports or bundle failed as baseline
 * absorbs its new findings as "persisting" although no report ever showed them. So a failed step, a
 * partial snapshot (exit 3), a lost lock or an interruption leaves the previous baseline in place;
 * a tripped gate does not (the run did all its work, and its reports show what tripped).
 *
 * The record is written last, after every step, with one atomic rename: a run killed at any moment
 * leaves either the old record or the new one, and the new one only if every step had finished.
 */
import { readGatedBaseline, recordGatedBaseline } from './gated-baseline.js';
import type { RunState } from './run-state.js';
import type { RunSummary, StepName } from './run-summary.js';

const EVERY_STEP: readonly StepName[] = [
  'snapshot',
  'verify',
  'load',
  'diff',
  'reports',
  'gates',
  'bundle',
  'retention',
];

/** Why this run may not become the baseline, or null when it may. */
export function baselineBlocker(state: RunState): string | null {
  // A stop signal during the last step cut nothing short (the exit code says so too); one earlier did.
  if (state.stoppedEarly) return 'the run was interrupted';
  const failed = state.steps.filter((step) => step.status === 'failed').map((step) => step.name);
  if (failed.length > 0) return `failed step${failed.length === 1 ? '' : 's'}: ${failed.join(', ')}`;
  if (state.lockLost) return 'the run lock was lost mid-run';
  const snapshot = state.snapshot;
  if (snapshot === null) return 'no snapshot was taken';
  if (snapshot.status !== 'complete') {
    const failedRequests = snapshot.manifest.failed_requests.length;
    return `the snapshot is partial (${failedRequests} failed request(s))`;
  }
  // A step skipped on purpose (bundle disabled, no retention) is fine; one never reached is not.
  const missing = EVERY_STEP.find(
    (name) =>
      !state.steps.some((step) => step.name === name && (step.status !== 'skipped' || step.error === null)),
  );
  if (missing !== undefined) return `the ${missing} step did not run`;
  return null;
}

/**
 * Records this run's snapshot as the workspace's baseline when every step succeeded on a complete
 * snapshot; otherwise leaves the record alone. Returns the summary's account of it.
 */
export async function settleBaseline(state: RunState): Promise<RunSummary['baseline']> {
  const { config } = state;
  const { org, workspace } = config.connection;
  const blocker = baselineBlocker(state);
  const snapshotId = state.snapshot?.snapshotId;
  if (blocker === null && snapshotId !== undefined) {
    try {
      await recordGatedBaseline(config.database, org, workspace, {
        snapshot_id: snapshotId,
        gated_at: state.now().toISOString(),
        previous_snapshot_id: state.previousSnapshotId,
      });
      state.baselineRecorded = true;
      return { advanced: true, snapshot_id: snapshotId, reason: null };
    } catch (error) {
      state.warn(
        `cannot record snapshot ${snapshotId} as the baseline (${(error as Error).message}); ` +
          'the next run compares with the previous baseline again',
      );
      return {
        advanced: false,
        snapshot_id: await currentBaseline(state),
        reason: 'the record could not be written',
      };
    }
  }
  return {
    advanced: false,
    snapshot_id: await currentBaseline(state),
    reason: blocker ?? 'no snapshot was taken',
  };
}

/** The baseline the next run will compare with: as read by the load step, else read now. */
async function currentBaseline(state: RunState): Promise<string | null> {
  if (state.recordedBaseline !== undefined) return state.recordedBaseline;
  const { config } = state;
  try {
    const recorded = await readGatedBaseline(
      config.database,
      config.connection.org,
      config.connection.workspace,
    );
    return recorded?.snapshot_id ?? null;
  } catch (error) {
    state.warn(`cannot read the baseline record: ${(error as Error).message}`);
    return null;
  }
}
