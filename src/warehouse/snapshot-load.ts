/**
 * The work of loading one verified snapshot, inside the transaction loader.ts opened: manifest facts,
 * summaries, evaluation pages and findings/ (parsed in JS, small), then the trial files (DuckDB,
 * snapshot-trials.ts), then the count checks against the manifest. Throwing anywhere rolls the whole
 * snapshot back.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest, ManifestFile } from '../snapshot/manifest.js';
import { resolveInside } from '../snapshot/safe-path.js';
import { VERSION } from '../version.js';
import {
  alteredValueRows,
  alteredValuesMessage,
  mayHoldLoneSurrogates,
  repairLoneSurrogates,
  type AlteredValue,
} from './altered-values.js';
import { appendRows, type Row } from './db.js';
import { collectEvaluationPage } from './evaluation-rows.js';
import { collectFindingDetail } from './finding-rows.js';
import { AcceptanceFileSchema } from '../snapshot/risk-acceptances-file.js';
import { acceptanceValues } from './acceptance-rows.js';
import { parseJsonText } from './json-file.js';
import { checkRecordCount, manifestWarnings, type VerifyProblem } from './load-checks.js';
import { isShared, SnapshotRowSets } from './row-sets.js';
import { mapLikeTwin, recordInputs, snapshotInputsKey, snapshotWithInputs } from './snapshot-inputs.js';
import { isPlainObject, RowCollector, warningRows } from './row-builder.js';
import type { ScopeContext } from './assessment-rows.js';
import { collectProjectSummary, collectProjectWithoutSummary, type ProjectEntry } from './summary-rows.js';
import { SummaryMemoLoad, summaryMemoKey, type MemoRowSet, type SummaryMemo } from './summary-memo.js';
import {
  locateAssessments,
  memoKeysOf,
  readWithAssessmentMemos,
  type LocatedSummary,
} from './assessment-memo.js';
import { snapshotTrialCounts } from './trial-content.js';
import { manifestFilesOf, type SnapshotTrialCounts, type SnapshotTrials } from './snapshot-trials.js';
import {
  ALTERED_VALUES,
  ATTACK_RUNS,
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
  | { type: 'table'; snapshotId: string; table: string; rows: number }
  | { type: 'trials'; snapshotId: string; filesDone: number; filesTotal: number }
  | { type: 'committed'; snapshotId: string };

/** The work of loading one verified snapshot inside its transaction. */
export class SnapshotLoad {
  private readonly sink = new RowCollector();
  private readonly snapshotId: string;
  /** Rows written per relation for this snapshot, as reported (the load's result). */
  private readonly rowCounts = new Map<string, number>();
  /** assessment id → project scope, from the summaries (for trials). */
  private readonly assessmentScopes = new Map<string, ScopeContext>();
  /** manifest project key → scope. */
  private readonly projectScopes = new Map<string, ScopeContext>();
  /** Values stored altered (see altered-values.ts), in load order. */
  private readonly altered: AlteredValue[] = [];
  /** The shared tables' rows, keyed as each table is written, stored together at the end (row-sets.ts). */
  private readonly rowSets: SnapshotRowSets;
  /** Summaries taken from memos, and the memos of those parsed (summary-memo.ts). */
  private readonly summaryMemos = new SummaryMemoLoad();
  /** Rows per relation that memos mapped (not collected). */
  private readonly memoRowCounts = new Map<string, number>();
  /** Assessments of parsed summaries taken from their memos, of all they list (assessment-memo.ts). */
  private readonly assessmentsReused = { reused: 0, assessments: 0 };
  /** attack run id → project scope, in summary order (finding details take their project from it). */
  private readonly runScopes = new Map<string, { project_id: string | null; project_key: string | null }>();

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
  }

  private filesOf(kind: ManifestFile['kind']): ManifestFile[] {
    return manifestFilesOf(this.manifest, kind);
  }

  /** The parsed body of a manifest file; a missing one (forced load) is reported, and undefined. */
  private async readBody(file: ManifestFile): Promise<unknown> {
    const bytes = await this.readBytes(file);
    if (bytes === undefined) this.reportMissing(file);
    return bytes === undefined ? undefined : this.parseBody(file, bytes.toString('utf8'));
  }

  /** A manifest file's bytes; undefined when it is missing (a forced load: see reportMissing). */
  private async readBytes(file: ManifestFile): Promise<Buffer | undefined> {
    try {
      return await readFile(resolveInside(this.dir, file.path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private reportMissing(file: ManifestFile): void {
    this.sink.warn(
      'file_missing',
      `${file.path} is listed in the manifest but missing; not loaded`,
      file.path,
    );
  }

  /** A file's text parsed, lone surrogates repaired (and the originals kept: altered-values.ts). */
  private parseBody(file: ManifestFile, text: string): unknown {
    const body = parseJsonText(text, path.join(this.dir, file.path));
    if (!mayHoldLoneSurrogates(text)) return body;
    // Stored as UTF-8, a lone surrogate would silently become U+FFFD: do it here, and keep the original.
    return repairLoneSurrogates(body, '$', (jsonPath, original) =>
      this.altered.push({
        file: file.path,
        jsonPath,
        originalJson: JSON.stringify(original),
        table: null,
        rowKey: null,
      }),
    );
  }

  private checkCount(file: ManifestFile, loaded: number, records?: { body: unknown; field: string }): void {
    checkRecordCount(this.dir, file, loaded, records);
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
    await this.loadSummaries();
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
    await this.summaryMemos.save(this.conn);
    // Every relation was counted above (written from JS, or counted after the trial load).
    const rows = Object.fromEntries(RELATIONS.map((t) => [t.name, this.rowCounts.get(t.name) ?? 0]));
    return { warnings: warnings.length, rows };
  }

  private async write(table: TableDef, rows: readonly Row[]): Promise<void> {
    if (isShared(table))
      this.summaryMemos.split(table.name, rows, (part, onRowSet) => this.rowSets.add(table, part, onRowSet));
    else await appendRows(this.conn, table, rows);
    this.counted(table, rows.length + (this.memoRowCounts.get(table.name) ?? 0));
  }

  /** Records a relation's row count for this snapshot and reports it (progress). */
  private counted(table: TableDef, rows: number): void {
    this.rowCounts.set(table.name, rows);
    this.progress({ type: 'table', snapshotId: this.snapshotId, table: table.name, rows });
  }

  private async loadConfig(): Promise<unknown> {
    const file = this.filesOf('config')[0];
    return file ? this.readBody(file) : undefined;
  }

  private async loadSummaries(): Promise<void> {
    const summaries = this.filesOf('project_summary');
    const used = new Set<ManifestFile>();
    const toLoad: { entry: ProjectEntry; file: ManifestFile | undefined; unlisted: boolean }[] = [];
    for (const project of this.manifest.projects) {
      const file =
        summaries.find((f) => f.project === project.key) ??
        summaries.find((f) => f.path === `projects/${project.dir}/summary.json`);
      if (file) used.add(file);
      const entry: ProjectEntry = {
        snapshotId: this.snapshotId,
        requestedKey: project.key,
        manifestProjectId: project.project_id,
        manifestStatus: project.status,
        summaryFile: file?.path ?? null,
      };
      toLoad.push({ entry, file, unlisted: false });
    }
    // A summary file without a manifest project entry still loads (and is reported).
    for (const file of summaries.filter((f) => !used.has(f))) {
      const entry: ProjectEntry = {
        snapshotId: this.snapshotId,
        requestedKey: file.project ?? file.path,
        manifestProjectId: file.project_id ?? null,
        manifestStatus: 'ok',
        summaryFile: file.path,
      };
      toLoad.push({ entry, file, unlisted: true });
    }
    // Only a verified file is taken from (or recorded as) a memo.
    const memoKeys = toLoad.map(({ entry, file }) =>
      file && this.verifiedFiles.has(file.path) ? summaryMemoKey(file, entry) : undefined,
    );
    await this.summaryMemos.prepare(
      this.conn,
      memoKeys.filter((key): key is string => key !== undefined),
    );
    // The changed summaries are read and their assessments located a batch at a time before they are
    // loaded, so that one query reads the memos of all their assessments (assessment-memo.ts); a
    // batch holds up to SUMMARY_BATCH_BYTES of summaries (a first load reads every summary).
    for (let first = 0; first < toLoad.length;) {
      const changed = new Map<number, ChangedSummary>();
      let end = first;
      for (let held = 0; end < toLoad.length && (end === first || held < SUMMARY_BATCH_BYTES); end++) {
        const { entry, file } = toLoad[end]!;
        const key = memoKeys[end];
        if (!file || key === undefined || this.summaryMemos.memoOf(key)) continue;
        const bytes = await this.readBytes(file);
        held += bytes?.length ?? 0;
        // A summary that may hold lone surrogates is parsed whole: their repair walks every value.
        const located =
          bytes && !mayHoldLoneSurrogates(bytes) ? locateAssessments(bytes, file.path, entry) : undefined;
        changed.set(end, { bytes, located });
      }
      await this.summaryMemos.prepare(
        this.conn,
        [...changed.values()].flatMap(({ located }) => (located ? memoKeysOf(located) : [])),
      );
      for (; first < end; first++) {
        const { entry, file, unlisted } = toLoad[first]!;
        if (file && unlisted)
          this.sink.warn(
            'unlisted_summary',
            `${file.path} has no entry in manifest.projects; loaded under its own key`,
            file.path,
          );
        await this.loadProject(entry, file, memoKeys[first], changed.get(first));
      }
    }
    if (this.summaryMemos.reused > 0)
      this.progress({
        type: 'summaries_reused',
        snapshotId: this.snapshotId,
        reused: this.summaryMemos.reused,
        summaries: toLoad.filter(({ file }) => file).length,
      });
    if (this.assessmentsReused.reused > 0)
      this.progress({ type: 'assessments_reused', snapshotId: this.snapshotId, ...this.assessmentsReused });
  }

  private async loadProject(
    entry: ProjectEntry,
    file: ManifestFile | undefined,
    memoKey?: string,
    changed?: ChangedSummary,
  ): Promise<void> {
    const memo = memoKey === undefined ? undefined : this.summaryMemos.memoOf(memoKey);
    if (file && memo) {
      this.reuseSummary(entry, file, memo);
      return;
    }
    const runsBefore = this.sink.count(ATTACK_RUNS.name);
    const [warningsBefore, alteredBefore] = [this.sink.warnings.length, this.altered.length];
    const bytes = changed ? changed.bytes : file && (await this.readBytes(file));
    if (file && !bytes) this.reportMissing(file);
    if (!file || !bytes) {
      this.projectScopes.set(entry.requestedKey, collectProjectWithoutSummary(entry, this.sink));
      return;
    }
    const unit = memoKey === undefined ? undefined : this.summaryMemos.open(memoKey, this.sink.rows);
    const read =
      unit && changed?.located
        ? readWithAssessmentMemos(
            {
              memos: this.summaryMemos,
              sink: this.sink,
              map: (sets) => this.mapMemoRowSets(sets),
              runScopes: this.runScopes,
              reused: this.assessmentsReused,
            },
            unit,
            changed.located,
          )
        : undefined;
    const body = read ? read.body : this.parseBody(file, bytes.toString('utf8'));
    const { scope, assessments, assessmentIds } = collectProjectSummary(
      entry,
      body,
      this.sink,
      read?.eachAssessment,
    );
    this.projectScopes.set(entry.requestedKey, scope);
    this.checkCount(file, assessments, { body, field: 'assessments' });
    for (const id of assessmentIds) this.assessmentScopes.set(id, scope);
    this.collectRunScopes(runsBefore);
    if (!unit) return;
    const { snapshot_id: _id, ...unscoped } = scope;
    this.summaryMemos.close(unit, this.sink.rows, {
      scope: unscoped,
      assessments,
      assessmentIds,
      warnings: this.sink.warnings.slice(warningsBefore),
      altered: this.altered.slice(alteredBefore),
    });
  }

  /** Maps row sets a memo names to this snapshot, counting their rows as the relation's. */
  private mapMemoRowSets(sets: readonly MemoRowSet[]): void {
    for (const set of sets) {
      this.rowSets.map(set);
      this.memoRowCounts.set(set.relation, (this.memoRowCounts.get(set.relation) ?? 0) + set.rows);
    }
  }

  /** A summary an earlier load parsed (same memo key): its memo stands for the file (summary-memo.ts). */
  private reuseSummary(entry: ProjectEntry, file: ManifestFile, memo: SummaryMemo): void {
    const scope: ScopeContext = { snapshot_id: this.snapshotId, ...memo.scope };
    this.summaryMemos.reused++;
    this.sink.warnings.push(...memo.warnings);
    this.altered.push(...memo.altered);
    this.projectScopes.set(entry.requestedKey, scope);
    for (const id of memo.assessmentIds) this.assessmentScopes.set(id, scope);
    for (const id of memo.attackRunIds)
      this.runScopes.set(id, { project_id: scope.project_id, project_key: scope.project_key });
    this.mapMemoRowSets(memo.rowSets);
    this.checkCount(file, memo.assessments);
  }

  private async loadEvaluations(): Promise<void> {
    const projectKeys = new Map<string, string | null>();
    for (const scope of this.projectScopes.values())
      if (scope.project_id) projectKeys.set(scope.project_id, scope.project_key);
    const seen = new Set<string>();
    for (const file of this.filesOf('evaluations_page')) {
      const body = await this.readBody(file);
      if (body === undefined) continue;
      const { items } = collectEvaluationPage(
        body,
        { snapshotId: this.snapshotId, file: file.path, page: file.page ?? null, projectKeys, seen },
        this.sink,
      );
      this.checkCount(file, items, { body, field: 'items' });
    }
  }

  private async loadFindings(): Promise<void> {
    const runScopes = this.runScopes;
    const seenEvents = new Set<string>();
    const files = this.filesOf('finding');
    for (const [i, file] of files.entries()) {
      const body = await this.readBody(file);
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
      this.checkCount(file, 1);
    }
  }

  /** triage/acceptances.json: the dated risk acceptances the journal held when the snapshot was taken. */
  private async loadAcceptances(): Promise<void> {
    for (const file of this.filesOf('risk_acceptances')) {
      const body = await this.readBody(file);
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
      this.checkCount(file, records.length);
    }
  }

  /**
   * Records the project scope of each attack run collected from `start` on (one summary's): finding
   * details take their project from the run they belong to.
   */
  private collectRunScopes(start: number): void {
    const at = (name: string): number => ATTACK_RUNS.columns.findIndex((c) => c.name === name);
    const [idIndex, pidIndex, keyIndex] = [at('attack_run_id'), at('project_id'), at('project_key')];
    for (const row of (this.sink.rows.get(ATTACK_RUNS.name) ?? []).slice(start)) {
      const id = row[idIndex];
      if (typeof id !== 'string') continue;
      this.runScopes.set(id, {
        project_id: (row[pidIndex] as string | null) ?? null,
        project_key: (row[keyIndex] as string | null) ?? null,
      });
    }
  }

  /** The trial files (snapshot-trials.ts), then their counts. */
  private async loadTrials(): Promise<void> {
    const counts = await this.trials.load({
      scopeOf: (assessmentId, file) =>
        this.assessmentScopes.get(assessmentId) ??
        (file.project ? this.projectScopes.get(file.project) : undefined),
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

/** How many bytes of changed summaries loadSummaries reads ahead (their memos read in one query). */
const SUMMARY_BATCH_BYTES = 64 * 1024 * 1024;

/**
 * A changed summary read before the others are loaded (loadSummaries): its bytes (undefined: missing)
 * and its assessments located, where the bytes allow (assessment-memo.ts).
 */
interface ChangedSummary {
  bytes: Buffer | undefined;
  located: LocatedSummary | undefined;
}
