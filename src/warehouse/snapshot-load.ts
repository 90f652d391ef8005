/**
 * The work of loading one verified snapshot, inside the transaction loader.ts opened: manifest facts,
 * summaries (summary-load.ts), evaluation pages (evaluation-load.ts) and findings/ (parsed in JS,
 * small: files read by
 * snapshot-file-reader.ts), then the trial files (DuckDB, snapshot-trials.ts), then the count checks
 * against the manifest. Throwing anywhere rolls the whole snapshot back.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest, ManifestFile } from '../snapshot/manifest.js';
import { VERSION } from '../version.js';
import { alteredValueRows, alteredValuesMessage, type AlteredValue } from './altered-values.js';
import { appendRows, type Row } from './db.js';
import { loadEvaluationPages } from './evaluation-load.js';
import { collectFindingDetail } from './finding-rows.js';
import { AcceptanceFileSchema } from '../snapshot/risk-acceptances-file.js';
import { acceptanceValues } from './acceptance-rows.js';
import { manifestWarnings, type VerifyProblem } from './load-checks.js';
import { isShared, SnapshotRowSets } from './row-sets.js';
import { mapLikeTwin, recordInputs, snapshotInputsKey, snapshotWithInputs } from './snapshot-inputs.js';
import { isPlainObject, RowCollector, warningRows } from './row-builder.js';
import { SnapshotFileReader } from './snapshot-file-reader.js';
import { SnapshotSummaries } from './summary-load.js';
import { snapshotTrialCounts } from './trial-content.js';
import { manifestFilesOf, type SnapshotTrialCounts, type SnapshotTrials } from './snapshot-trials.js';
import {
  ALTERED_VALUES,
  LOAD_WARNINGS,
  MESSAGE_PARTS,
  RELATIONS,
  RISK_ACCEPTANCES,
  SCHEMA_DRIFT,
  SNAPSHOT_FILES,
  SNAPSHOT_TRIAL_FILES,
  SNAPSHOTS,
  TABLES,
  TRIAL_CONTENT,
  TRIAL_CONTENT_FILES,
  TRIALS,
  TRIAL_TOOL_CALLS,
  type TableDef,
} from './schema.js';

/** A step of a load, for progress output. */
export type LoadProgress =
  /** `reused`: files not read, their digest known to the warehouse (verified-files.ts). */
  | { type: 'verify'; dir: string; snapshotId: string; files: number; reused: number }
  | { type: 'already_loaded'; dir: string; snapshotId: string }
  /**
   * The trials ran out of memory on two threads: the snapshot is loaded again, the whole-file fast
   * path on one (trial-loader.ts).
   */
  | { type: 'retry_one_thread'; dir: string; message: string }
  /** Same inputs as the loaded snapshot `twin` (snapshot-inputs.ts): its rows are mapped, no file read. */
  | { type: 'same_inputs'; snapshotId: string; twin: string }
  /** Project summaries whose bytes an earlier load parsed: their rows are shared, not read (summary-memo.ts). */
  | { type: 'summaries_reused'; snapshotId: string; reused: number; summaries: number }
  /**
   * Assessments of the changed summaries whose JSON an earlier load built rows from: their rows are
   * shared, not built again (assessment-memo.ts).
   */
  | { type: 'assessments_reused'; snapshotId: string; reused: number; assessments: number }
  /**
   * Evaluation jobs whose JSON an earlier load built rows from: their rows are shared, not built again
   * (evaluation-memo.ts).
   */
  | { type: 'evaluation_jobs_reused'; snapshotId: string; reused: number; jobs: number }
  | { type: 'table'; snapshotId: string; table: string; rows: number }
  | { type: 'trials'; snapshotId: string; filesDone: number; filesTotal: number }
  | { type: 'committed'; snapshotId: string };

/** The work of loading one verified snapshot inside its transaction. */
export class SnapshotLoad {
  private readonly sink = new RowCollector();
  private readonly snapshotId: string;
  /** Rows written per relation for this snapshot, as reported (the load's result). */
  private readonly rowCounts = new Map<string, number>();
  /** Values stored altered (see altered-values.ts), in load order. */
  private readonly altered: AlteredValue[] = [];
  /** The shared tables' rows, keyed as each table is written, stored together at the end (row-sets.ts). */
  private readonly rowSets: SnapshotRowSets;
  private readonly files: SnapshotFileReader;
  /** The project summaries, and the scopes the other files take from them (summary-load.ts). */
  private readonly summaries: SnapshotSummaries;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly dir: string,
    private readonly manifest: Manifest,
    private readonly verifiedFiles: ReadonlySet<string>,
    private readonly progress: (event: LoadProgress) => void,
    /** The snapshot's trial files, read with the same verified files (snapshot-trials.ts). */
    private readonly trials: SnapshotTrials,
  ) {
    this.snapshotId = manifest.snapshot_id;
    this.rowSets = new SnapshotRowSets(this.snapshotId);
    this.files = new SnapshotFileReader(dir, this.sink, this.altered);
    this.summaries = new SnapshotSummaries({
      conn,
      snapshotId: this.snapshotId,
      manifest,
      verifiedFiles,
      sink: this.sink,
      altered: this.altered,
      rowSets: this.rowSets,
      files: this.files,
      progress,
    });
  }

  private filesOf(kind: ManifestFile['kind']): ManifestFile[] {
    return manifestFilesOf(this.manifest, kind);
  }

  /** Loads everything; returns the number of load warnings and the rows per relation (RELATIONS order). */
  async run(
    manifestSha256: string,
    problems: readonly VerifyProblem[],
    forced: boolean,
    loadedAt: Date,
  ): Promise<{ warnings: number; rows: Record<string, number> }> {
    const { manifest, sink } = this;
    const config = await this.loadConfig();
    sink.addValues(SNAPSHOTS, {
      snapshot_id: this.snapshotId,
      org: manifest.org,
      workspace: manifest.workspace,
      status: manifest.status,
      started_at: manifest.started_at,
      fetched_at: manifest.finished_at,
      base_url: manifest.base_url,
      tool_version: manifest.tool_version,
      api_version: manifest.api_version,
      app_version: manifest.app_version,
      root_sha256: manifest.root_sha256,
      manifest_sha256: manifestSha256,
      verified: problems.length === 0,
      forced: forced && problems.length > 0,
      options: JSON.stringify(manifest.options),
      config: config === undefined ? null : JSON.stringify(config),
      warnings: JSON.stringify(manifest.warnings),
      failed_requests: JSON.stringify(manifest.failed_requests),
      source_dir: this.dir,
      loaded_at: loadedAt.toISOString(),
      loader_version: VERSION,
    });
    const inputsKey = snapshotInputsKey(manifest, { verifiedFiles: this.verifiedFiles, problems, forced });
    const twin = await snapshotWithInputs(this.conn, inputsKey);
    const result = twin === undefined ? await this.loadRows(problems) : await this.reuseRows(twin);
    await recordInputs(this.conn, this.snapshotId, inputsKey);
    return result;
  }

  /**
   * The rows of a snapshot whose inputs equal a loaded one's (snapshot-inputs.ts): that snapshot's row
   * sets and trial files, mapped to this one, without reading a file again.
   */
  private async reuseRows(twin: string): Promise<{ warnings: number; rows: Record<string, number> }> {
    this.progress({ type: 'same_inputs', snapshotId: this.snapshotId, twin });
    await this.write(SNAPSHOTS, this.sink.rows.get(SNAPSHOTS.name) ?? []);
    const shared = await mapLikeTwin(this.conn, this.snapshotId, twin);
    for (const table of RELATIONS) if (isShared(table)) this.counted(table, shared.get(table.name) ?? 0);
    await this.countTrials();
    const rows = Object.fromEntries(RELATIONS.map((t) => [t.name, this.rowCounts.get(t.name) ?? 0]));
    return { warnings: shared.get(LOAD_WARNINGS.name) ?? 0, rows };
  }

  /** Reads every file of the snapshot into rows (the first load of these inputs). */
  private async loadRows(
    problems: readonly VerifyProblem[],
  ): Promise<{ warnings: number; rows: Record<string, number> }> {
    const { manifest, sink } = this;
    for (const [kind, paths] of Object.entries(manifest.schema_drift).sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (const jsonPath of [...paths].sort()) {
        sink.addValues(SCHEMA_DRIFT, { snapshot_id: this.snapshotId, file_kind: kind, json_path: jsonPath });
      }
    }
    // Every file with its hash, so exports cite the exact file behind a finding (OSCAL evidence).
    manifest.files.forEach((file, ordinal) => {
      sink.addValues(SNAPSHOT_FILES, {
        snapshot_id: this.snapshotId,
        path: file.path,
        kind: file.kind,
        sha256: file.sha256,
        bytes: file.bytes,
        request_path: file.request?.path ?? null,
        ordinal,
      });
    });
    await this.summaries.load();
    await this.loadEvaluations();
    await this.loadFindings();
    await this.loadAcceptances();
    for (const table of TABLES) {
      if (table === LOAD_WARNINGS || table === ALTERED_VALUES || TRIAL_STORAGE.includes(table)) continue;
      await this.write(table, this.sink.rows.get(table.name) ?? []);
    }
    await this.loadTrials();
    await this.write(ALTERED_VALUES, alteredValueRows(this.snapshotId, this.altered));
    if (this.altered.length > 0)
      sink.warn('altered_values', alteredValuesMessage(this.altered.length), null, {
        values: this.altered.length,
        files: [...new Set(this.altered.map((a) => a.file))].sort(),
      });
    const warnings = [...manifestWarnings(this.manifest, problems), ...sink.warnings];
    await this.write(LOAD_WARNINGS, warningRows(this.snapshotId, warnings));
    await this.rowSets.write(this.conn);
    await this.summaries.memos.save(this.conn);
    // Every relation was counted above (written from JS, or counted after the trial load).
    const rows = Object.fromEntries(RELATIONS.map((t) => [t.name, this.rowCounts.get(t.name) ?? 0]));
    return { warnings: warnings.length, rows };
  }

  private async write(table: TableDef, rows: readonly Row[]): Promise<void> {
    if (isShared(table))
      this.summaries.memos.split(table.name, rows, (part, onRowSet) =>
        this.rowSets.add(table, part, onRowSet),
      );
    else await appendRows(this.conn, table, rows);
    this.counted(table, rows.length + (this.summaries.memoRowCounts.get(table.name) ?? 0));
  }

  /** Records a relation's row count for this snapshot and reports it (progress). */
  private counted(table: TableDef, rows: number): void {
    this.rowCounts.set(table.name, rows);
    this.progress({ type: 'table', snapshotId: this.snapshotId, table: table.name, rows });
  }

  private async loadConfig(): Promise<unknown> {
    const file = this.filesOf('config')[0];
    return file ? this.files.readBody(file) : undefined;
  }

  /** The evaluation list pages (evaluation-load.ts). */
  private async loadEvaluations(): Promise<void> {
    await loadEvaluationPages({
      conn: this.conn,
      snapshotId: this.snapshotId,
      pages: this.filesOf('evaluations_page'),
      verifiedFiles: this.verifiedFiles,
      sink: this.sink,
      files: this.files,
      summaries: this.summaries,
      progress: this.progress,
    });
  }

  private async loadFindings(): Promise<void> {
    const runScopes = this.summaries.runScopes;
    const seenEvents = new Set<string>();
    const files = this.filesOf('finding');
    for (const [i, file] of files.entries()) {
      const body = await this.files.readBody(file);
      if (body === undefined) continue;
      const scope = isPlainObject(body) && typeof body.id === 'string' ? runScopes.get(body.id) : undefined;
      collectFindingDetail(
        body,
        {
          snapshotId: this.snapshotId,
          origin: 'finding_detail',
          file: file.path,
          projectId: scope?.project_id ?? null,
          projectKey: scope?.project_key ?? null,
          ordinal: i,
        },
        seenEvents,
        this.sink,
      );
      this.files.checkCount(file, 1);
    }
  }

  /** triage/acceptances.json: the dated risk acceptances the journal held when the snapshot was taken. */
  private async loadAcceptances(): Promise<void> {
    for (const file of this.filesOf('risk_acceptances')) {
      const body = await this.files.readBody(file);
      if (body === undefined) continue;
      const parsed = AcceptanceFileSchema.safeParse(body);
      const records = parsed.success ? parsed.data : [];
      records.forEach((record, ordinal) => {
        this.sink.addValues(
          RISK_ACCEPTANCES,
          acceptanceValues(record, {
            snapshotId: this.snapshotId,
            origin: 'snapshot',
            manifest: this.manifest,
            ordinal,
          }),
        );
      });
      this.files.checkCount(file, records.length);
    }
  }

  /** The trial files (snapshot-trials.ts), then their counts. */
  private async loadTrials(): Promise<void> {
    const counts = await this.trials.load({
      scopeOf: (assessmentId, file) =>
        this.summaries.assessmentScopes.get(assessmentId) ??
        (file.project ? this.summaries.projectScopes.get(file.project) : undefined),
      sink: this.sink,
      altered: this.altered,
      onFiles: (done, total) =>
        this.progress({ type: 'trials', snapshotId: this.snapshotId, filesDone: done, filesTotal: total }),
    });
    this.countedTrials(counts);
  }

  /** Counts this snapshot's trials, tool calls and parts from the stored contents' counts. */
  private async countTrials(): Promise<void> {
    this.countedTrials(await snapshotTrialCounts(this.conn, this.snapshotId));
  }

  private countedTrials(counts: SnapshotTrialCounts): void {
    this.counted(TRIALS, counts.trials);
    this.counted(TRIAL_TOOL_CALLS, counts.toolCalls);
    this.counted(MESSAGE_PARTS, counts.parts);
  }
}

/** The trial tables: written by loadTrials(), not from collected rows. */
const TRIAL_STORAGE: readonly TableDef[] = [SNAPSHOT_TRIAL_FILES, TRIAL_CONTENT, TRIAL_CONTENT_FILES];
