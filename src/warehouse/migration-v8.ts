/**
 * Schema version 8 (issue 14): trial rows stored once per distinct trial file content. Upgrades a
 * version 7 database (whose trial tables are still version 6's): its `trials` table becomes trial_content (rows keyed by a content key) plus
 * snapshot_trial_files (which snapshot holds which content), and `trials` is then a view (views.ts)
 * with the same columns and rows.
 *
 * Frozen SQL, written against version 7's tables (trials as in version 6): never edit it after it shipped. Rows loaded before
 * version 8 have no file hash in the database, so each (snapshot, project, assessment) keeps its own
 * content (`v6:` + a digest of those ids; path and file_sha256 NULL): nothing is shared, nothing is
 * lost, and loads from version 8 on share what they can.
 */

/** The key of a version 6 trial row's content: unique per snapshot, project and assessment. */
const V6_KEY = `'v6:' || md5(CAST(json_array(t.snapshot_id, t.project_id, t.project_key, t.assessment_id) AS VARCHAR))`;

export const MIGRATION_V8 = {
  version: 8,
  description:
    'trial rows stored once per distinct trial file content (trial_content, trial_content_files) and mapped to snapshots (snapshot_trial_files); trials is a view with the same columns',
  statements: (): string[] => [
    `CREATE TABLE snapshot_trial_files AS
     SELECT DISTINCT t.snapshot_id, t.project_id, t.project_key, t.assessment_id,
            CAST(NULL AS VARCHAR) AS path, ${V6_KEY} AS content_key
     FROM trials t`,
    `CREATE TABLE trial_content AS
     SELECT ${V6_KEY} AS content_key, t.* EXCLUDE (snapshot_id, project_id, project_key, assessment_id)
     FROM trials t`,
    `CREATE TABLE trial_content_files AS
     SELECT content_key, CAST(NULL AS VARCHAR) AS file_sha256, 'migrated' AS read_path,
            count(*) AS trials, count(extra) AS trials_with_extra,
            CAST(sum(coalesce(len(tool_call_list), 0)) AS BIGINT) AS tool_calls,
            CAST(sum(coalesce(len(candidate_part_list), 0) + coalesce(len(response_part_list), 0)
                + CAST(coalesce(candidate_part_implied, false) AS INTEGER)
                + CAST(coalesce(response_part_implied, false) AS INTEGER)) AS BIGINT) AS message_parts,
            CAST(NULL AS JSON) AS altered
     FROM trial_content GROUP BY content_key`,
    'DROP TABLE trials',
  ],
};
