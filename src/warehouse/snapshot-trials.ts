/**
 * The trial files of one snapshot (SnapshotLoad's trial part): staged before the load's transaction,
 * then, inside it, mapped to the snapshot and read only where their content is not stored yet
 * (trial-content.ts), and counted against the manifest.
 *
 *   stage()  before the transaction: new contents ─▶ temp stages (trial-loader.ts)
 *   load()   in the transaction: snapshot_trial_files ─▶ new contents read ─▶ counts per assessment
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Manifest, ManifestFile } from '../snapshot/manifest.js';
import { resolveInside } from '../snapshot/safe-path.js';
import type { AlteredValue, TrialFileRepairs } from './altered-values.js';
import type { ScopeContext } from './assessment-rows.js';
import { appendRows } from './db.js';
import { checkRecordCount } from './load-checks.js';
import type { RowCollector } from './row-builder.js';
import { SNAPSHOT_TRIAL_FILES } from './schema.js';
import {
  contentIdentity,
  filesToRead,
  manifestVouches,
  snapshotTrialCounts,
  storedContents,
} from './trial-content.js';
import {
  loadTrialFiles,
  stageTrials,
  trialReadFailure,
  type StagedFiles,
  type TrialFile,
} from './trial-loader.js';

/** A manifest's files of one kind in load order: by page, then by path. */
export function manifestFilesOf(manifest: Manifest, kind: ManifestFile['kind']): ManifestFile[] {
  return manifest.files
    .filter((f) => f.kind === kind)
    .sort((a, b) => (a.page ?? 0) - (b.page ?? 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What a snapshot's trial load reports back to the rest of its load. */
export interface TrialLoadContext {
  /** The project scope of an assessment's trial file (from the summaries), if any. */
  scopeOf: (assessmentId: string, file: ManifestFile) => ScopeContext | undefined;
  sink: RowCollector;
  /** Values stored altered: the trial files' are appended, in file order. */
  altered: AlteredValue[];
  onFiles: (done: number, total: number) => void;
}

export type SnapshotTrialCounts = Awaited<ReturnType<typeof snapshotTrialCounts>>;

export class SnapshotTrials {
  private readonly snapshotId: string;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly dir: string,
    private readonly manifest: Manifest,
    private readonly verifiedFiles: ReadonlySet<string>,
    /** Trial files DuckDB refused although valid JSON, rewritten: read these copies instead. */
    private readonly repairs: TrialFileRepairs,
    /** DuckDB threads for the whole-file fast path (trial-loader.ts). */
    private readonly wholeFileThreads = 1,
  ) {
    this.snapshotId = manifest.snapshot_id;
  }

  /** Read with the trial loader's fast path: verified, and the manifest vouches for its content. */
  private isVouched(file: ManifestFile): boolean {
    return this.verifiedFiles.has(file.path) && manifestVouches(file);
  }

  /** How the file's trial rows are stored and shared (trial-content.ts). */
  private identityOf(file: ManifestFile) {
    return contentIdentity(file, this.snapshotId, this.verifiedFiles.has(file.path), this.isVouched(file));
  }

  /**
   * Before the transaction: stages the trial files (see trial-loader.ts). The caller drops the stage
   * (dropTrialStage) whatever happens.
   */
  async stage(): Promise<void> {
    const files: (StagedFiles[number] & { contentKey: string })[] = [];
    for (const [fileNo, file] of manifestFilesOf(this.manifest, 'trials').entries()) {
      const full = resolveInside(this.dir, file.path);
      // Only regular files: the stage may run before verification (which refuses anything else), and
      // a FIFO or device must not block or feed the reader meanwhile. load() skips the same ones.
      const repaired = this.repairs.files.get(file.path);
      if (await fileExists(full))
        files.push({
          fileNo,
          path: repaired?.path ?? full,
          relPath: file.path,
          bytes: repaired?.bytes ?? file.bytes,
          vouched: this.isVouched(file),
          contentKey: this.identityOf(file).contentKey,
        });
    }
    // Only what the load will read: contents already stored are not staged (load() agrees).
    const stored = await storedContents(
      this.conn,
      files.map((f) => f.contentKey),
    );
    try {
      await stageTrials(this.conn, filesToRead(files, stored));
    } catch (error) {
      throw await trialReadFailure(error, this.dir);
    }
  }

  /**
   * In the transaction: each file's content is stored once (trial-content.ts); a file whose content is
   * already stored is only mapped to this snapshot, never read again. Returns the snapshot's counts.
   */
  async load(context: TrialLoadContext): Promise<SnapshotTrialCounts> {
    const { sink } = context;
    const files: TrialFile[] = [];
    const manifestFiles = manifestFilesOf(this.manifest, 'trials');
    const stored = await storedContents(
      this.conn,
      manifestFiles.map((f) => this.identityOf(f).contentKey),
    );
    for (const [fileNo, file] of manifestFiles.entries()) {
      const full = resolveInside(this.dir, file.path);
      const assessmentId = file.assessment_id ?? path.basename(file.path, '.json');
      const scope = context.scopeOf(assessmentId, file);
      if (!scope)
        sink.warn(
          'orphan_trials',
          `${file.path}: assessment ${assessmentId} is not in any loaded summary`,
          file.path,
        );
      if (!this.verifiedFiles.has(file.path) && !(await fileExists(full))) {
        sink.warn(
          'file_missing',
          `${file.path} is listed in the manifest but missing; not loaded`,
          file.path,
        );
        continue;
      }
      const identity = this.identityOf(file);
      const repaired = this.repairs.files.get(file.path);
      // A stored content replays the values it was stored with altered; a new one has them from its repair.
      const altered = stored.get(identity.contentKey) ?? repaired?.altered ?? [];
      for (const value of altered)
        context.altered.push({
          file: file.path,
          jsonPath: value.jsonPath,
          originalJson: value.originalJson,
          table: 'trials',
          rowKey: { assessment_id: assessmentId, trial_ordinal: value.record },
        });
      files.push({
        ...identity,
        fileNo,
        path: repaired?.path ?? full,
        relPath: file.path,
        bytes: repaired?.bytes ?? file.bytes,
        assessmentId,
        projectId: scope?.project_id ?? null,
        projectKey: scope?.project_key ?? null,
        records: file.records,
        vouched: this.isVouched(file),
        altered,
      });
    }
    await appendRows(
      this.conn,
      SNAPSHOT_TRIAL_FILES,
      files.map((f) => [this.snapshotId, f.projectId, f.projectKey, f.assessmentId, f.relPath, f.contentKey]),
    );
    try {
      await loadTrialFiles(this.conn, filesToRead(files, stored), context.onFiles, this.wholeFileThreads);
    } catch (error) {
      throw await trialReadFailure(error, this.dir);
    }
    const counts = await snapshotTrialCounts(this.conn, this.snapshotId);
    this.checkCounts(manifestFiles, files, counts.perAssessment, sink);
    return counts;
  }

  /** Each loaded file's trials against the manifest's count; trials with unknown keys are reported. */
  private checkCounts(
    manifestFiles: readonly ManifestFile[],
    loaded: readonly TrialFile[],
    counts: ReadonlyMap<string, { n: number; withExtra: number }>,
    sink: RowCollector,
  ): void {
    const loadedByPath = new Map(loaded.map((f) => [f.relPath, f]));
    for (const file of manifestFiles) {
      const trialFile = loadedByPath.get(file.path);
      if (!trialFile) continue;
      const count = counts.get(trialFile.assessmentId) ?? { n: 0, withExtra: 0 };
      checkRecordCount(this.dir, file, count.n);
      if (count.withExtra > 0) {
        sink.warn(
          'trial_extra',
          `${file.path}: ${count.withExtra} trial(s) carry unknown keys or values of an unexpected type, kept in trials.extra`,
          file.path,
          { trials: count.withExtra },
        );
      }
    }
  }
}

/** A regular file (a FIFO or device is not read: see stage()). */
async function fileExists(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}
