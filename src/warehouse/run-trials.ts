/**
 * Which trials belong to an attack run: the one definition, for the viewer's finding page and the
 * OSCAL export. A trial names no attack run (trials/<assessment>.json gives each trial its attack and
 * goal, not the run's id), so a run's trials are those of its snapshot, project, assessment, attack
 * and goal. Not the assessment and attack alone: an assessment that runs one attack against several
 * goals has one run per goal, each with its own trials.
 */

/** SQL expressions of an attack run's key: columns of a joined row, or bound parameters (`$1`). */
export interface RunTrialsKey {
  snapshot_id: string;
  project_key: string;
  assessment_id: string;
  attack_name: string;
  goal: string;
}

/** The condition that a row of `trials` (its alias or table name) is a trial of the run `run`. */
export function runTrialsCondition(trials: string, run: RunTrialsKey): string {
  return (
    `${trials}.snapshot_id = ${run.snapshot_id} AND ${trials}.project_key = ${run.project_key} ` +
    `AND ${trials}.assessment_id = ${run.assessment_id} AND ${trials}.attack_name = ${run.attack_name} ` +
    `AND coalesce(${trials}.goal, '') = coalesce(${run.goal}, '')`
  );
}
