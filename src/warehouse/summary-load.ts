/**
 * The project summaries of one snapshot's load: each summary's rows (parsed, or mapped from the memo
 * of a summary loaded before: summary-memo.ts; a changed summary's unchanged assessments mapped from
 * theirs: assessment-memo.ts), and the project scopes the rest of the load takes from them (trial
 * files by assessment, finding details by attack run, evaluation jobs by project).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest, ManifestFile } from '../snapshot/manifest.js';
import { mayHoldLoneSurrogates, type AlteredValue } from './altered-values.js';
import {
  locateAssessments,
  memoKeysOf,
  readWithAssessmentMemos,
  type LocatedSummary,
} from './assessment-memo.js';
import type { ScopeContext } from './assessment-rows.js';
import type { RowCollector } from './row-builder.js';
import type { SnapshotRowSets } from './row-sets.js';
import { ATTACK_RUNS } from './schema.js';
import type { SnapshotFileReader } from './snapshot-file-reader.js';
import type { LoadProgress } from './snapshot-load.js';
import { manifestFilesOf } from './snapshot-trials.js';
import { SummaryMemoLoad, summaryMemoKey, type MemoRowSet, type SummaryMemo } from './summary-memo.js';
import { collectProjectSummary, collectProjectWithoutSummary, type ProjectEntry } from './summary-rows.js';

/** What the summaries' load shares with the rest of the snapshot's load. */
export interface SummaryLoadContext {
  conn: DuckDBConnection;
  snapshotId: string;
  manifest: Manifest;
  /** Only a verified file is taken from (or recorded as) a memo. */
  verifiedFiles: ReadonlySet<string>;
  sink: RowCollector;
  altered: AlteredValue[];
  rowSets: SnapshotRowSets;
  files: SnapshotFileReader;
  progress: (event: LoadProgress) => void;
}

/** One snapshot's project summaries, loaded (load()), and what the rest of its load takes from them. */
export class SnapshotSummaries {
  /** Summaries taken from memos, and the memos of those parsed (summary-memo.ts). */
  readonly memos = new SummaryMemoLoad();
  /** Rows per relation that memos mapped (not collected). */
  readonly memoRowCounts = new Map<string, number>();
  /** manifest project key → scope. */
  readonly projectScopes = new Map<string, ScopeContext>();
  /** assessment id → project scope (for trials). */
  readonly assessmentScopes = new Map<string, ScopeContext>();
  /** attack run id → project scope, in summary order (finding details take their project from it). */
  readonly runScopes = new Map<string, { project_id: string | null; project_key: string | null }>();
  /** Assessments of parsed summaries taken from their memos, of all they list (assessment-memo.ts). */
  private readonly assessmentsReused = { reused: 0, assessments: 0 };

  constructor(private readonly context: SummaryLoadContext) {}

  /** Loads the snapshot's project summaries (see the module comment). */
  async load(): Promise<void> {
    const projects = this.projectsToLoad();
    await this.memos.prepare(
      this.context.conn,
      projects.flatMap(({ memoKey }) => (memoKey === undefined ? [] : [memoKey])),
    );
    for (let first = 0; first < projects.length;) {
      const { changed, end } = await this.readAhead(projects, first);
      for (; first < end; first++) {
        const { entry, file, unlisted, memoKey } = projects[first]!;
        if (file && unlisted)
          this.context.sink.warn(
            'unlisted_summary',
            `${file.path} has no entry in manifest.projects; loaded under its own key`,
            file.path,
          );
        await this.loadProject(entry, file, memoKey, changed.get(first));
        // Its bytes are not needed any more: a batch holds only those still to load.
        changed.delete(first);
      }
    }
    const { snapshotId } = this.context;
    if (this.memos.reused > 0)
      this.context.progress({
        type: 'summaries_reused',
        snapshotId,
        reused: this.memos.reused,
        summaries: projects.filter(({ file }) => file).length,
      });
    if (this.assessmentsReused.reused > 0)
      this.context.progress({ type: 'assessments_reused', snapshotId, ...this.assessmentsReused });
  }

  /**
   * Every project of the manifest with its summary file, then every summary file no project lists
   * (loaded under its own key, and reported); each with its memo key where the file verified.
   */
  private projectsToLoad(): ProjectToLoad[] {
    const { manifest, snapshotId, verifiedFiles } = this.context;
    const summaries = manifestFilesOf(manifest, 'project_summary');
    const used = new Set<ManifestFile>();
    const projects: Omit<ProjectToLoad, 'memoKey'>[] = [];
    /** project id → the key it was first listed under. */
    const listed = new Map<string, string>();
    for (const project of manifest.projects) {
      const file =
        summaries.find((f) => f.project === project.key) ??
        summaries.find((f) => f.path === `projects/${project.dir}/summary.json`);
      if (file) used.add(file);
      // One project asked for twice (`snapshot --project KEY --project ID`) is listed under both: its rows
      // once, or every figure over the snapshot's projects would count it twice.
      const first = project.project_id === null ? undefined : listed.get(project.project_id);
      if (first !== undefined) {
        this.context.sink.warn(
          'duplicate_project',
          `Project ${JSON.stringify(project.key)} is ${JSON.stringify(first)} (id ${project.project_id}) listed again; loaded once, as ${JSON.stringify(first)}`,
          file?.path ?? null,
          { project: project.key, loaded_as: first, project_id: project.project_id },
        );
        continue;
      }
      if (project.project_id !== null) listed.set(project.project_id, project.key);
      const entry: ProjectEntry = {
        snapshotId,
        requestedKey: project.key,
        manifestProjectId: project.project_id,
        manifestStatus: project.status,
        summaryFile: file?.path ?? null,
      };
      projects.push({ entry, file, unlisted: false });
    }
    for (const file of summaries.filter((f) => !used.has(f))) {
      const entry: ProjectEntry = {
        snapshotId,
        requestedKey: file.project ?? file.path,
        manifestProjectId: file.project_id ?? null,
        manifestStatus: 'ok',
        summaryFile: file.path,
      };
      projects.push({ entry, file, unlisted: true });
    }
    // Only a verified file is taken from (or recorded as) a memo.
    return projects.map((p) => ({
      ...p,
      memoKey: p.file && verifiedFiles.has(p.file.path) ? summaryMemoKey(p.file, p.entry) : undefined,
    }));
  }

  /**
   * Reads the changed summaries from `first` on, up to SUMMARY_BATCH_BYTES of them (at least one
   * project), locates their assessments and reads those assessments' memos in one query; `end` is
   * the first project after the batch.
   */
  private async readAhead(
    projects: readonly ProjectToLoad[],
    first: number,
  ): Promise<{ changed: Map<number, ChangedSummary>; end: number }> {
    const changed = new Map<number, ChangedSummary>();
    let end = first;
    for (let held = 0; end < projects.length && (end === first || held < SUMMARY_BATCH_BYTES); end++) {
      const { entry, file, memoKey } = projects[end]!;
      if (!file || memoKey === undefined || this.memos.memoOf(memoKey)) continue;
      const bytes = await this.context.files.readBytes(file);
      held += bytes?.length ?? 0;
      // A summary that may hold lone surrogates is parsed whole: their repair walks every value.
      const located =
        bytes && !mayHoldLoneSurrogates(bytes) ? locateAssessments(bytes, file.path, entry) : undefined;
      changed.set(end, { bytes, located });
    }
    await this.memos.prepare(
      this.context.conn,
      [...changed.values()].flatMap(({ located }) => (located ? memoKeysOf(located) : [])),
    );
    return { changed, end };
  }

  private async loadProject(
    entry: ProjectEntry,
    file: ManifestFile | undefined,
    memoKey?: string,
    changed?: ChangedSummary,
  ): Promise<void> {
    const memo = memoKey === undefined ? undefined : this.memos.memoOf(memoKey);
    if (file && memo) {
      this.reuseSummary(entry, file, memo);
      return;
    }
    const runsBefore = this.context.sink.count(ATTACK_RUNS.name);
    const [warningsBefore, alteredBefore] = [this.context.sink.warnings.length, this.context.altered.length];
    const bytes = changed ? changed.bytes : file && (await this.context.files.readBytes(file));
    if (file && !bytes) this.context.files.reportMissing(file);
    if (!file || !bytes) {
      this.projectScopes.set(entry.requestedKey, collectProjectWithoutSummary(entry, this.context.sink));
      return;
    }
    const unit = memoKey === undefined ? undefined : this.memos.open(memoKey, this.context.sink.rows);
    const read =
      unit && changed?.located
        ? readWithAssessmentMemos(
            {
              memos: this.memos,
              sink: this.context.sink,
              map: (sets) => this.mapMemoRowSets(sets),
              runScopes: this.runScopes,
              reused: this.assessmentsReused,
            },
            unit,
            changed.located,
          )
        : undefined;
    const body = read ? read.body : this.context.files.parseBody(file, bytes.toString('utf8'));
    const { scope, assessments, assessmentIds } = collectProjectSummary(
      entry,
      body,
      this.context.sink,
      read?.eachAssessment,
    );
    this.projectScopes.set(entry.requestedKey, scope);
    this.context.files.checkCount(file, assessments, { body, field: 'assessments' });
    for (const id of assessmentIds) this.assessmentScopes.set(id, scope);
    this.collectRunScopes(runsBefore);
    if (!unit) return;
    const { snapshot_id: _id, ...unscoped } = scope;
    this.memos.close(unit, this.context.sink.rows, {
      scope: unscoped,
      assessments,
      assessmentIds,
      warnings: this.context.sink.warnings.slice(warningsBefore),
      altered: this.context.altered.slice(alteredBefore),
    });
  }

  /**
   * Maps row sets a memo names to this snapshot, counting their rows as the relation's (the evaluation
   * jobs' memos too: evaluation-memo.ts).
   */
  mapMemoRowSets(sets: readonly MemoRowSet[]): void {
    for (const set of sets) {
      this.context.rowSets.map(set);
      this.memoRowCounts.set(set.relation, (this.memoRowCounts.get(set.relation) ?? 0) + set.rows);
    }
  }

  /** A summary an earlier load parsed (same memo key): its memo stands for the file (summary-memo.ts). */
  private reuseSummary(entry: ProjectEntry, file: ManifestFile, memo: SummaryMemo): void {
    const scope: ScopeContext = { snapshot_id: this.context.snapshotId, ...memo.scope };
    this.memos.reused++;
    this.context.sink.warnings.push(...memo.warnings);
    this.context.altered.push(...memo.altered);
    this.projectScopes.set(entry.requestedKey, scope);
    for (const id of memo.assessmentIds) this.assessmentScopes.set(id, scope);
    for (const id of memo.attackRunIds)
      this.runScopes.set(id, { project_id: scope.project_id, project_key: scope.project_key });
    this.mapMemoRowSets(memo.rowSets);
    this.context.files.checkCount(file, memo.assessments);
  }

  /**
   * Records the project scope of each attack run collected from `start` on (one summary's): finding
   * details take their project from the run they belong to.
   */
  private collectRunScopes(start: number): void {
    const at = (name: string): number => ATTACK_RUNS.columns.findIndex((c) => c.name === name);
    const [idIndex, pidIndex, keyIndex] = [at('attack_run_id'), at('project_id'), at('project_key')];
    for (const row of (this.context.sink.rows.get(ATTACK_RUNS.name) ?? []).slice(start)) {
      const id = row[idIndex];
      if (typeof id !== 'string') continue;
      this.runScopes.set(id, {
        project_id: (row[pidIndex] as string | null) ?? null,
        project_key: (row[keyIndex] as string | null) ?? null,
      });
    }
  }
}

/** A project whose summary the load takes: its manifest entry, summary file and memo key. */
interface ProjectToLoad {
  entry: ProjectEntry;
  file: ManifestFile | undefined;
  /** A summary file no manifest project lists (loaded under its own key, and reported). */
  unlisted: boolean;
  /** Undefined where the file did not verify (never memoized). */
  memoKey: string | undefined;
}

/** How many bytes of changed summaries load() reads ahead (their assessments' memos read in one query). */
const SUMMARY_BATCH_BYTES = 64 * 1024 * 1024;

/**
 * A changed summary read before the others are loaded (load()): its bytes (undefined: missing) and its
 * assessments located, where the bytes allow (assessment-memo.ts).
 */
interface ChangedSummary {
  bytes: Buffer | undefined;
  located: LocatedSummary | undefined;
}
