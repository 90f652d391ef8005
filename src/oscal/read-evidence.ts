/**
 * What an OSCAL export of one project and snapshot needs, read from the warehouse (never the
 * snapshot directory, so an export can be made again later): the snapshot, its findings with their
 * triage and risk acceptance as the snapshot holds them (the metrics layer's metric_findings), the
 * trials behind each finding, the compliance categories' states, and the sha256 of every snapshot file
 * cited.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryRows } from '../diff/warehouse-source.js';
import { CliError } from '../errors.js';
import { requireKnownFramework } from '../metrics/known-framework.js';
import { resolveProjectScope } from '../metrics/project-scope.js';
import { frameworkCategoriesOfTags, type FrameworkCategoryRef } from '../taxonomy/compliance-tags.js';
import { runTrialsCondition } from '../warehouse/run-trials.js';
import { unverifiedFiles } from '../warehouse/snapshot-lookup.js';

export interface OscalSnapshot {
  snapshot_id: string;
  org: string;
  workspace: string;
  started_at: string | null;
  fetched_at: string | null;
  root_sha256: string | null;
  tool_version: string | null;
  /**
   * False when the snapshot failed verification and was loaded anyway (forced): its results come from
   * files that are not the ones its root hash vouches for (the document says so).
   */
  verified: boolean;
  /**
   * The files whose loaded bytes did not match the manifest (a forced load's verify_failed warnings,
   * read as the reports read them); empty when verified.
   */
  unverified_files: string[];
  project_key: string;
  project_id: string | null;
  project_name: string | null;
}

export interface OscalFinding {
  attack_run_id: string;
  assessment_id: string;
  assessment_name: string | null;
  attack_name: string | null;
  goal: string | null;
  goal_category: string | null;
  /**
   * The finding's severity as every figure reads it (triage's, else its score's band); null when it
   * is unknown: the attack run lacks its required best_score and no triage gave one (never info).
   */
  severity: string | null;
  best_score: number | null;
  /** The attack run lacks its required best_score: its score is unknown (best_score null), not absent. */
  score_unknown: boolean;
  /**
   * Whether the run reached its goal, as the figures count it (metric_findings.successful: best judge
   * score at least the success threshold); null when it has no score (no finished trial, or unknown).
   */
  successful: boolean | null;
  finding_status: string;
  is_open: boolean;
  counted: boolean;
  acceptance_state: string | null;
  accepted_by: string | null;
  acceptance_reason: string | null;
  accepted_until: string | null;
  expires_at: string | null;
  accepted_at: string | null;
  /**
   * The framework categories the attack run's own `compliance_tags` name (the taxonomy's one map):
   * the categories this finding is evidence for.
   */
  categories: FrameworkCategoryRef[];
  /** Trials of this attack run (run-trials.ts: its assessment, attack and goal; span id, else index), in order. */
  trials: { ref: string; score: number | null }[];
  trial_count: number;
}

export interface OscalCategory {
  framework: string;
  tag: string;
  state: string;
  total_trials: number | null;
}

export interface OscalFile {
  path: string;
  kind: string;
  sha256: string;
  bytes: number;
}

export interface OscalEvidence {
  snapshot: OscalSnapshot;
  /**
   * The one framework the document is about (a report's --framework), or null for all: its categories
   * only, and the findings (attack runs) tagged with one of them.
   */
  framework: string | null;
  findings: OscalFinding[];
  categories: OscalCategory[];
  /** Snapshot files by path. */
  files: Map<string, OscalFile>;
}

/** Trial references listed per finding; the count and the file's hash cover the rest. */
const TRIAL_REFS = 20;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** A run's stored compliance_tags (JSON text), parsed; anything unreadable names no category. */
function parsedTags(text: unknown): unknown {
  if (typeof text !== 'string') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The project's snapshot: `snapshotId`, else the newest holding its summary; a key several workspaces
 * use needs org/workspace. Resolved as every report resolves it (metrics/project-scope.ts), so an
 * export and a report of the same request read the same snapshot and fail with the same message.
 */
async function readSnapshot(
  conn: DuckDBConnection,
  request: {
    project: string;
    snapshotId?: string | undefined;
    org?: string | undefined;
    workspace?: string | undefined;
  },
): Promise<OscalSnapshot> {
  const scope = await resolveProjectScope(conn, request.project, request.snapshotId, request);
  const [row] = await queryRows(
    conn,
    `SELECT s.org, s.workspace, strftime(s.started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
            strftime(s.fetched_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS fetched_at, s.root_sha256, s.tool_version,
            s.verified
     FROM snapshots s WHERE s.snapshot_id = $1`,
    [scope.snapshotId],
  );
  if (row === undefined)
    throw new CliError(`Snapshot ${scope.snapshotId} has no snapshots row; reload the database.`);
  const verified = row.verified !== false;
  return {
    snapshot_id: scope.snapshotId,
    org: String(row.org),
    workspace: String(row.workspace),
    started_at: str(row.started_at),
    fetched_at: str(row.fetched_at),
    root_sha256: str(row.root_sha256),
    tool_version: str(row.tool_version),
    verified,
    unverified_files: verified
      ? []
      : ((await unverifiedFiles(conn, [scope.snapshotId])).get(scope.snapshotId) ?? []),
    project_key: scope.project.key,
    project_id: scope.project.id,
    project_name: scope.project.name,
  };
}

/** Reads everything the document is made of. */
export async function readOscalEvidence(
  conn: DuckDBConnection,
  request: {
    project: string;
    snapshotId?: string | undefined;
    org?: string | undefined;
    workspace?: string | undefined;
    /** Only this compliance framework (unknown: a usage error, as the compliance report's). */
    framework?: string | undefined;
  },
): Promise<OscalEvidence> {
  const snapshot = await readSnapshot(conn, request);
  const params = [snapshot.snapshot_id, snapshot.project_key];
  const findingRows = await queryRows(
    conn,
    `SELECT f.*, strftime(f.expires_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS expires_text,
            strftime(f.accepted_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS accepted_text
     FROM metric_findings f WHERE f.snapshot_id = $1 AND f.project_key = $2 ORDER BY f.attack_run_id`,
    params,
  );
  // Each finding's own trials, as the viewer's finding page finds them (run-trials.ts).
  const trialRows = await queryRows(
    conn,
    `SELECT f.attack_run_id, coalesce(t.span_id, 'trial_index=' || CAST(t.trial_index AS VARCHAR),
              'trial_ordinal=' || CAST(t.trial_ordinal AS VARCHAR)) AS ref, t.score
     FROM metric_findings f
     JOIN trials t ON ${runTrialsCondition('t', {
       snapshot_id: 'f.snapshot_id',
       project_key: 'f.project_key',
       assessment_id: 'f.assessment_id',
       attack_name: 'f.attack_name',
       goal: 'f.goal',
     })}
     WHERE f.snapshot_id = $1 AND f.project_key = $2 ORDER BY f.attack_run_id, t.trial_ordinal`,
    params,
  );
  const trialsBy = new Map<string, { ref: string; score: number | null }[]>();
  for (const row of trialRows) {
    const key = String(row.attack_run_id);
    const list = trialsBy.get(key) ?? [];
    list.push({ ref: String(row.ref), score: num(row.score) });
    trialsBy.set(key, list);
  }
  // Each run's categories from its own tags, not from the attack names a category lists: a category
  // lists every attack any of its runs used (and the older matrix format lists none).
  const tagRows = await queryRows(
    conn,
    `SELECT attack_run_id, CAST(compliance_tags AS VARCHAR) AS tags FROM attack_runs
     WHERE snapshot_id = $1 AND project_key = $2`,
    params,
  );
  const categoriesBy = new Map(
    tagRows.map((row) => [String(row.attack_run_id), frameworkCategoriesOfTags(parsedTags(row.tags))]),
  );
  const allFindings = findingRows.map((row): OscalFinding => {
    const trials = trialsBy.get(String(row.attack_run_id)) ?? [];
    return {
      attack_run_id: String(row.attack_run_id),
      assessment_id: String(row.assessment_id),
      assessment_name: str(row.assessment_name),
      attack_name: str(row.attack_name),
      goal: str(row.goal),
      goal_category: str(row.goal_category),
      severity: str(row.severity),
      best_score: num(row.best_score),
      score_unknown: row.score_unknown === true,
      successful: typeof row.successful === 'boolean' ? row.successful : null,
      finding_status: String(row.finding_status),
      is_open: row.is_open === true,
      counted: row.counted === true,
      acceptance_state: str(row.acceptance_state),
      accepted_by: str(row.accepted_by),
      acceptance_reason: str(row.acceptance_reason),
      accepted_until: str(row.accepted_until),
      expires_at: str(row.expires_text),
      accepted_at: str(row.accepted_text),
      categories: categoriesBy.get(String(row.attack_run_id)) ?? [],
      trials: trials.slice(0, TRIAL_REFS),
      trial_count: trials.length,
    };
  });
  const categoryRows = await queryRows(
    conn,
    `SELECT framework, tag, state, total_trials FROM metric_compliance_categories
     WHERE snapshot_id = $1 AND project_key = $2 ORDER BY framework, tag`,
    params,
  );
  const allCategories = categoryRows.map((row): OscalCategory => ({
    framework: String(row.framework),
    tag: String(row.tag),
    state: String(row.state),
    total_trials: num(row.total_trials),
  }));
  const framework = request.framework ?? null;
  if (framework !== null)
    requireKnownFramework(framework, [...new Set(allCategories.map((c) => c.framework))]);
  const categories =
    framework === null ? allCategories : allCategories.filter((c) => c.framework === framework);
  // With a framework, the findings are the attack runs tagged with one of its categories.
  const findings =
    framework === null
      ? allFindings
      : allFindings.filter((f) => f.categories.some((c) => c.framework === framework));
  const fileRows = await queryRows(
    conn,
    'SELECT path, kind, sha256, bytes FROM snapshot_files WHERE snapshot_id = $1 ORDER BY path',
    [snapshot.snapshot_id],
  );
  const files = new Map(
    fileRows.map((row) => [
      String(row.path),
      {
        path: String(row.path),
        kind: String(row.kind),
        sha256: String(row.sha256),
        bytes: num(row.bytes) ?? 0,
      },
    ]),
  );
  return { snapshot, framework, findings, categories, files };
}
