/**
 * A snapshot whose inputs equal those of one already loaded is not parsed again (issue 14: "a file
 * whose sha256 is already in the database is not parsed again"): its rows are that snapshot's row
 * sets and trial contents, mapped to the new id.
 *
 * The inputs key covers everything the rows of a snapshot are derived from: the manifest (every file's
 * path, sha256, counts, validation facts, the projects, warnings, failed requests, drift), which files
 * verified, the verification problems, whether the load was forced, and the airt-report version that
 * builds the rows (its version and ROW_FORMAT). Left out are only the manifest fields that feed nothing but the `snapshots` row,
 * which every load writes itself: the id, the times, the root hash (a function of the files), the
 * options, and how each file's bytes got there (fetched_at, stored, linked_from, reused_from).
 *
 * Recorded in snapshot_inputs (internal), one row per snapshot loaded from version 11 on.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest } from '../snapshot/manifest.js';
import { VERSION } from '../version.js';
import { appendRows } from './db.js';
import { ROW_FORMAT } from './row-format.js';
import { POSITION_COLUMNS } from './row-sets.js';
import { ctx, type TableDef } from './schema-core.js';

export const SNAPSHOT_INPUTS: TableDef = {
  name: 'snapshot_inputs',
  doc: 'Internal: the key of what each snapshot was loaded from (manifest facts, verification, version).',
  scope: 'snapshot',
  columns: [ctx('snapshot_id', 'VARCHAR'), ctx('inputs_key', 'VARCHAR')],
};

/** What the load was given besides the manifest. */
export interface LoadInputs {
  verifiedFiles: ReadonlySet<string>;
  problems: readonly { file: string; message: string }[];
  forced: boolean;
}

/** The inputs key of a snapshot load (see the module comment). */
export function snapshotInputsKey(manifest: Manifest, inputs: LoadInputs): string {
  const {
    snapshot_id: _id,
    started_at: _started,
    finished_at: _finished,
    root_sha256: _root,
    options: _options,
    files,
    ...facts
  } = manifest;
  const fileFacts = files.map(
    ({ fetched_at: _at, stored: _stored, linked_from: _from, reused_from: _reused, ...rest }) => rest,
  );
  return createHash('sha256')
    .update(
      JSON.stringify({
        version: VERSION,
        rows: ROW_FORMAT,
        facts,
        files: fileFacts,
        verified: [...inputs.verifiedFiles].sort(),
        problems: inputs.problems,
        forced: inputs.forced,
      }),
    )
    .digest('hex');
}

/** A loaded snapshot with these inputs (the first by id), or undefined. */
export async function snapshotWithInputs(
  conn: DuckDBConnection,
  inputsKey: string,
): Promise<string | undefined> {
  const reader = await conn.runAndReadAll(
    'SELECT min(snapshot_id) FROM snapshot_inputs WHERE inputs_key = $1',
    [inputsKey],
  );
  const found = reader.getRows()[0]?.[0];
  return found === null || found === undefined ? undefined : String(found);
}

export async function recordInputs(
  conn: DuckDBConnection,
  snapshotId: string,
  inputsKey: string,
): Promise<void> {
  await appendRows(conn, SNAPSHOT_INPUTS, [[snapshotId, inputsKey]]);
}

/**
 * Maps `twin`'s row sets and trial files to `snapshotId` (within the load's transaction). Returns the
 * rows per shared table, as the twin's mappings record them.
 */
export async function mapLikeTwin(
  conn: DuckDBConnection,
  snapshotId: string,
  twin: string,
): Promise<Map<string, number>> {
  const columns = ['relation', 'row_set', '"rows"', ...POSITION_COLUMNS.map((c) => c.name)].join(', ');
  await conn.run(
    `INSERT INTO snapshot_row_sets (snapshot_id, ${columns}) SELECT $1, ${columns} FROM snapshot_row_sets WHERE snapshot_id = $2`,
    [snapshotId, twin],
  );
  await conn.run(
    `INSERT INTO snapshot_trial_files (snapshot_id, project_id, project_key, assessment_id, path, content_key)
     SELECT $1, project_id, project_key, assessment_id, path, content_key FROM snapshot_trial_files WHERE snapshot_id = $2`,
    [snapshotId, twin],
  );
  const reader = await conn.runAndReadAll(
    'SELECT relation, sum("rows") FROM snapshot_row_sets WHERE snapshot_id = $1 GROUP BY relation',
    [snapshotId],
  );
  return new Map(reader.getRows().map(([relation, rows]) => [String(relation), Number(rows)]));
}
