/**
 * The steps of a run (see run-pipeline.ts for the phase diagram). Each is a small function of the
 * run's state: it declares the steps it needs, does one job through a library call, records the
 * files it wrote and returns a one-line detail for the summary. Heavy modules load lazily.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { formatBytes } from '../snapshot/disk-usage.js';
import type { Manifest } from '../snapshot/manifest.js';
import { diffJson, diffMarkdown } from '../diff/diff-report.js';
import { writeOutputFile } from '../output-file.js';
import { WordedError, wordsFlags } from '../errors.js';
import { baselineInScope, gatedBaselinePath, readGatedBaseline } from './gated-baseline.js';
import { buildGateReport, gateReportJson, gateReportMarkdown } from './gate-report.js';
import { gateReportJunit } from './gate-junit.js';
import { evaluateGates } from './gates.js';
import { BASELINE_REASON } from './gates-baseline.js';
import { applyRetention, listFinishedSnapshots } from './retention.js';
import { RUN_TOKEN_SOURCE, runOptionName } from './run-config.js';
import { fetchedFromService, nothingFetched } from './run-nothing-fetched.js';
import { planReports, plannedReportOut } from './run-reports.js';
import type { RunState } from './run-state.js';
import type { ProjectRef } from '../warehouse/snapshot-lookup.js';
import type { GateProjects } from './gate-scope.js';

/**
 * The snapshot `run` passes as `--since`: the newest complete snapshot of this org and workspace on
 * disk (listFinishedSnapshots only lists finished directories whose manifest names this workspace),
 * else the newest partial one that fetched anything. Partial ones are only a fallback: every file a
 * manifest lists is vouched for, but a partial snapshot lacks the lists that failed, so the newest
 * complete one usually shares more. One that fetched nothing from the service has nothing to share.
 */
export function sinceSnapshot<T extends { manifest: Manifest }>(
  finishedOldestFirst: readonly T[],
): T | undefined {
  const usable = finishedOldestFirst.filter((snapshot) => fetchedFromService(snapshot.manifest));
  return usable.filter((snapshot) => snapshot.manifest.status === 'complete').at(-1) ?? usable.at(-1);
}

/** 1. Snapshot, sharing unchanged files of the previous complete snapshot on disk (see sinceSnapshot). */
export async function snapshotStep(state: RunState): Promise<void> {
  const { config, effects } = state;
  await state.step('snapshot', [], async () => {
    const [{ takeSnapshot, stoppedRequestsOf }, { createProgress }] = await Promise.all([
      import('../snapshot/take-snapshot.js'),
      import('../snapshot/progress.js'),
    ]);
    const previous = sinceSnapshot(
      await listFinishedSnapshots(state.workspaceDir, config.connection.org, config.connection.workspace),
    );
    state.since = previous?.dir ?? null;
    const isTTY = effects.stderrIsTTY ?? false;
    const progress = createProgress({
      write: effects.stderr,
      isTTY,
      quiet: effects.quiet ?? false,
      stream: isTTY ? process.stderr : undefined,
    });
    const result = await takeSnapshot(
      {
        baseUrl: config.connection.base_url,
        org: config.connection.org,
        workspace: config.connection.workspace,
        token: state.token,
        tokenSource: RUN_TOKEN_SOURCE,
        out: config.snapshot.out_dir,
        projects: config.projects,
        concurrency: config.snapshot.concurrency,
        trialsLimit: config.snapshot.trials_limit,
        jailbreaksOnly: config.snapshot.jailbreaks_only,
        since: state.since ?? undefined,
        journal: config.snapshot.triage_journal,
        retry:
          config.snapshot.max_attempts === undefined
            ? undefined
            : { maxAttempts: config.snapshot.max_attempts },
        timeoutMs:
          config.snapshot.timeout_seconds === undefined
            ? undefined
            : Math.ceil(config.snapshot.timeout_seconds * 1000),
      },
      {
        now: () => state.now(),
        progress,
        ...(effects.signal ? { signal: effects.signal } : {}),
        ...(effects.fetch ? { fetch: effects.fetch } : {}),
      },
    ).catch((error: unknown) => {
      // No manifest will list what failed: keep the requests for the run summary, worded as a run
      // names its settings (config keys).
      state.stoppedRequests = stoppedRequestsOf(error, runOptionName);
      throw error;
    });
    state.snapshot = result;
    const { manifest } = result;
    const failed = manifest.failed_requests.length;
    // Files copied from the triage journal alone do not make a snapshot: the service was not reached.
    if (!fetchedFromService(manifest)) throw new Error(nothingFetched(result));
    return {
      status: result.status === 'partial' ? 'partial' : 'ok',
      detail:
        `${result.snapshotId}: ${manifest.status}, ${manifest.files.length} files` +
        (failed > 0 ? `, ${failed} failed requests` : '') +
        (state.since === null ? '' : `, since ${path.basename(state.since)}`),
    };
  });
}

/** 2. Verify every file hash and the root hash of the new snapshot. */
export async function verifyStep(state: RunState): Promise<void> {
  await state.step('verify', ['snapshot'], async () => {
    const [{ readManifest, verifySnapshot }, { heldTrialFilesIn }] = await Promise.all([
      import('../snapshot/verify.js'),
      import('../warehouse/trial-content.js'),
    ]);
    const snapshot = requireSnapshot(state);
    // Trial files whose content the warehouse stores are never read by the load: checked for their
    // size, not hashed, so a night costs what is new (`verify` still hashes every file).
    const held = await heldTrialFilesIn(state.config.database, await readManifest(snapshot.dir));
    const result = await verifySnapshot(snapshot.dir, { held });
    state.verification = result;
    if (!result.ok) {
      const differences =
        result.missing.length + result.extra.length + result.modified.length + (result.rootHash.ok ? 0 : 1);
      throw new WordedError(
        (name) =>
          `snapshot ${snapshot.snapshotId} does not match its manifest (${differences} differences); ` +
          (wordsFlags(name)
            ? `run airt-report verify ${snapshot.dir}`
            : `verifySnapshot shows what differs in ${snapshot.dir}`),
      );
    }
    return {
      detail:
        `${result.files} files` +
        (result.reused > 0 ? ` (${result.reused} trial files held by the warehouse, not hashed)` : '') +
        `, root ${result.rootHash.actual.slice(0, 12)}…`,
    };
  });
}

/** 3. Load into the warehouse; then settle the projects in scope and the previous snapshot. */
export async function loadStep(state: RunState): Promise<void> {
  const { config } = state;
  await state.step('load', ['verify'], async () => {
    const { loadSnapshots } = await import('../warehouse/loader.js');
    const snapshot = requireSnapshot(state);
    const { org, workspace } = config.connection;
    // Read before loading, so an interrupted load can still say what the next run compares with.
    state.recordedBaseline = (await readGatedBaseline(config.database, org, workspace))?.snapshot_id ?? null;
    const verified = state.verification;
    const loaded = await loadSnapshots(config.database, [snapshot.dir], {
      now: () => state.now(),
      ...(verified?.ok ? { verified: new Map([[path.resolve(snapshot.dir), verified]]) } : {}),
      ...(config.snapshot.triage_journal === undefined ? {} : { journal: config.snapshot.triage_journal }),
    });
    const result = loaded.snapshots[0];
    state.rowsLoaded = result ? Object.values(result.rows).reduce((sum, rows) => sum + rows, 0) : 0;
    const { projectsInSnapshot } = await import('../warehouse/snapshot-lookup.js');
    const { resolveGateProjects } = await import('./gate-scope.js');
    const conn = await state.warehouseConnection();
    state.previousSnapshotId = await usableBaseline(state, conn);
    const available = await projectsInSnapshot(conn, snapshot.snapshotId);
    state.projectsInSnapshot = available.map((p) => p.key);
    // The gates' scope: the configured projects (or all) the snapshot lists, with or without a summary.
    const scope = await resolveGateProjects(conn, snapshot.snapshotId, config.projects);
    state.gateProjects = scope;
    if (config.projects.length === 0) {
      state.projects = available.map((p) => p.key);
    } else {
      // The diff and the reports read the projects with a summary; one the night could not fetch is
      // still covered by the gates and the diff (diffScope), and the warning says so.
      const lacking = new Set(scope.withoutData.map((p) => p.key));
      state.projects = scope.projects.filter((key) => !lacking.has(key));
      for (const key of lacking)
        state.warn(
          `project ${key} has no summary in snapshot ${snapshot.snapshotId}: its summary request failed (the manifest's failed_requests), so its figures are unknown`,
        );
      for (const wanted of scope.notListed)
        state.warn(
          `project ${wanted} is not in snapshot ${snapshot.snapshotId} (see the manifest's warnings)`,
        );
    }
    return {
      detail:
        `${result?.outcome === 'already_loaded' ? 'already loaded' : `${state.rowsLoaded} rows`}, ` +
        `${state.projects.length} project(s) in scope`,
    };
  });
}

/**
 * The recorded gated baseline, if the database still holds it. Not the newest snapshot in the
 * database: that may be one whose run never reached its gates (see gated-baseline.ts).
 */
async function usableBaseline(state: RunState, conn: DuckDBConnection): Promise<string | null> {
  const { snapshotInfo } = await import('../warehouse/snapshot-lookup.js');
  const recorded = state.recordedBaseline ?? null;
  state.previousSnapshotReason = BASELINE_REASON.noGated;
  if (recorded === null || recorded === state.snapshot?.snapshotId) return null;
  const info = await snapshotInfo(conn, recorded);
  const { org, workspace } = state.config.connection;
  if (info !== null && baselineInScope(info, org, workspace)) {
    state.previousSnapshotReason = BASELINE_REASON.gated;
    return recorded;
  }
  const where = `(recorded in ${gatedBaselinePath(state.config.database)})`;
  if (info !== null) {
    state.previousSnapshotReason = BASELINE_REASON.unusable(
      recorded,
      `${where} belongs to ${info.org}/${info.workspace}`,
    );
    // Project keys are unique only inside a workspace: compared across workspaces, every finding
    // would be "new" or "resolved". An edited or copied record must not make the gates do that.
    state.warn(
      `the baseline snapshot ${recorded} (recorded in ${gatedBaselinePath(state.config.database)}) belongs to ` +
        `${info.org}/${info.workspace}, not ${org}/${workspace}; this run compares with no snapshot, so every open finding counts as new`,
    );
    return null;
  }
  state.previousSnapshotReason = BASELINE_REASON.unusable(recorded, `${where} is not in the database`);
  state.warn(
    `the baseline snapshot ${recorded} (recorded in ${gatedBaselinePath(state.config.database)}) is not in ` +
      `${state.config.database}; this run compares with no snapshot, so every open finding counts as new`,
  );
  return null;
}

/** 4. Diff against the previous snapshot of the workspace in the database. */
export async function diffStep(state: RunState): Promise<void> {
  await state.step('diff', ['load'], async () => {
    const { diffSnapshots } = await import('../diff/snapshot-diff.js');
    const snapshot = requireSnapshot(state);
    const conn = await state.warehouseConnection();
    const diff = await diffSnapshots(conn, {
      from: state.previousSnapshotId,
      to: snapshot.snapshotId,
      projects: await diffScope(state, conn, snapshot.snapshotId),
    });
    const total = (key: 'new' | 'resolved' | 'regressed' | 'persisting'): number =>
      diff.projects.reduce((sum, project) => sum + project.counts[key], 0);
    state.diffCounts = {
      new: total('new'),
      resolved: total('resolved'),
      regressed: total('regressed'),
      persisting: total('persisting'),
    };
    const runDir = requireRunDir(state);
    state.paths.diffMd = await writeOutput(state, path.join(runDir, 'diff.md'), diffMarkdown(diff));
    state.paths.diffJson = await writeOutput(state, path.join(runDir, 'diff.json'), diffJson(diff));
    const { new: added, resolved, regressed } = state.diffCounts;
    // A project the baseline held and this snapshot no longer lists: its findings were not resolved,
    // they are no longer reported, and the run says so (not "0 resolved" alone).
    const removed = diff.projects.filter((project) => !project.in_current);
    for (const project of removed)
      state.warn(
        `project ${project.project} is no longer listed (it was in ${state.previousSnapshotId ?? 'the baseline'}): ` +
          `${project.counts.no_longer_reported} of its findings are no longer reported, none resolved (see diff.md)`,
      );
    const gone =
      removed.length === 0
        ? ''
        : `, ${removed.length} project(s) no longer listed (${removed.reduce((sum, p) => sum + p.counts.no_longer_reported, 0)} findings no longer reported)`;
    return {
      detail:
        `${added} new, ${resolved} resolved, ${regressed} regressed findings${gone}` +
        (state.previousSnapshotId === null
          ? ' (first snapshot: no baseline)'
          : ` since ${state.previousSnapshotId}`),
    };
  });
}

/**
 * The projects the run's diff covers. Not `state.projects` (the projects the snapshot holds a summary
 * of): on a partial night that would leave out a project whose summary failed, which the diff lists
 * as not compared, and one the earlier snapshot held that this one no longer lists. With no projects
 * configured, the diff's own all-projects scope (empty); else the configured projects either snapshot
 * lists, held, failed or gone (one configured by key and by UUID is one project).
 */
async function diffScope(state: RunState, conn: DuckDBConnection, snapshotId: string): Promise<string[]> {
  if (state.config.projects.length === 0) return [];
  const { isSameProject, namesProject, projectsInSnapshot, projectsWithoutSummary } =
    await import('../warehouse/snapshot-lookup.js');
  const listed = [
    ...(await projectsInSnapshot(conn, snapshotId)),
    ...(await projectsWithoutSummary(conn, snapshotId, state.config.projects)),
    ...(state.previousSnapshotId === null ? [] : await projectsInSnapshot(conn, state.previousSnapshotId)),
  ];
  const scope: { wanted: string; project: ProjectRef }[] = [];
  for (const wanted of state.config.projects) {
    const project = listed.find((p) => namesProject(p, wanted));
    // Not listed by either snapshot: the load step warned that the snapshot does not hold it.
    if (project === undefined) continue;
    // The same project asked for twice, by key and by UUID, is one entry of the diff.
    if (!scope.some((entry) => isSameProject(entry.project, project))) scope.push({ wanted, project });
  }
  return scope.map((entry) => entry.wanted);
}

/** 5. Render the configured reports from the warehouse. */
export async function reportsStep(state: RunState): Promise<void> {
  const { config, effects } = state;
  await state.step('reports', ['load'], async () => {
    const snapshot = requireSnapshot(state);
    const { planned, skipped } = planReports(
      config.reports,
      state.projects,
      state.projectsInSnapshot,
      path.join(requireRunDir(state), 'reports'),
    );
    for (const reason of skipped) state.warn(reason);
    if (planned.length === 0) return { detail: 'no reports configured' };
    const [{ buildModel }, { writeReport }, { resolveChromiumPath }, { checkSchema }] = await Promise.all([
      import('../report/build-model.js'),
      import('../report/write-report.js'),
      import('../report/pdf.js'),
      import('../warehouse/ddl.js'),
    ]);
    const conn = await state.warehouseConnection();
    await checkSchema(conn, config.database);
    // One model per report, shared by its formats.
    const models = new Map<string, Awaited<ReturnType<typeof buildModel>>>();
    for (const report of planned) {
      const key = JSON.stringify([report.kind, report.project, report.framework]);
      let model = models.get(key);
      if (model === undefined) {
        model = await buildModel(conn, {
          kind: report.kind,
          project: report.project ?? undefined,
          // Portfolio reports cover every project's newest snapshot; the others this run's snapshot.
          snapshot: report.kind === 'portfolio' ? undefined : snapshot.snapshotId,
          // "Since last snapshot" compares with the same gated baseline as the run's diff and gates.
          since: state.previousSnapshotId,
          framework: report.framework ?? undefined,
        });
        models.set(key, model);
      }
      await mkdir(report.dir, { recursive: true }); // the run's own layout; writeReport creates no parents
      const written = await writeReport(model, {
        format: report.format,
        out: plannedReportOut(report),
        redact: report.redact,
        chromiumPath: effects.chromiumPath ?? resolveChromiumPath(effects.env),
        signal: effects.signal,
      });
      for (const file of written.files) await state.recordOutput(file);
      state.reportFiles.push({
        kind: report.kind,
        project: report.project,
        format: report.format,
        report: written.report,
        files: written.files,
        base: report.base,
      });
    }
    return {
      detail: `${planned.length} reports, ${state.reportFiles.reduce((n, r) => n + r.files.length, 0)} files`,
    };
  });
}

/** 6. Evaluate the gates and write the gate report (also when none are configured). */
export async function gatesStep(state: RunState): Promise<void> {
  const { config } = state;
  await state.step('gates', ['load'], async () => {
    const { warehouseMetricProvider } = await import('./warehouse-metrics.js');
    const snapshot = requireSnapshot(state);
    const conn = await state.warehouseConnection();
    const { withMetricReadsCached } = await import('../metrics/read-figures.js');
    // Not state.projects (those with a summary, which the diff and reports read): a project the
    // snapshot lists without one (its request failed) is in the gates' scope too, as unknown.
    const { projects, withoutData } = requireGateProjects(state);
    // Gates on one project read the same figures: each metric query runs once.
    const results = await withMetricReadsCached(conn, () =>
      evaluateGates(config.gates, warehouseMetricProvider(conn), {
        snapshotId: snapshot.snapshotId,
        previousSnapshotId: state.previousSnapshotId,
        projects,
        withoutData,
        onUnknown: config.on_unknown_gate,
      }),
    );
    state.gateResults = results;
    const { holdsSeveralWorkspaces, unverifiedSnapshotIds } = await import('../warehouse/snapshot-lookup.js');
    const several = await holdsSeveralWorkspaces(await state.warehouseConnection());
    const { readExpiringAcceptances } = await import('../metrics/read-acceptances.js');
    const report = buildGateReport({
      snapshotId: snapshot.snapshotId,
      previousSnapshotId: state.previousSnapshotId,
      previousSnapshotReason: state.previousSnapshotReason,
      rootSha256: snapshot.manifest.root_sha256,
      // A run loads its own snapshot verified, but the snapshot it compares with may have been forced.
      unverifiedSnapshots: await unverifiedSnapshotIds(await state.warehouseConnection(), [
        snapshot.snapshotId,
        state.previousSnapshotId,
      ]),
      workspace: several ? { org: snapshot.manifest.org, workspace: snapshot.manifest.workspace } : undefined,
      results,
      expiringAcceptances: await readExpiringAcceptances(
        await state.warehouseConnection(),
        snapshot.snapshotId,
        state.projects,
      ),
    });
    const runDir = requireRunDir(state);
    state.paths.gateMd = await writeOutput(
      state,
      path.join(runDir, 'gate-report.md'),
      gateReportMarkdown(report),
    );
    state.paths.gateJson = await writeOutput(
      state,
      path.join(runDir, 'gate-report.json'),
      gateReportJson(report),
    );
    state.paths.gateJunit = await writeOutput(
      state,
      path.join(runDir, 'gate-report.junit.xml'),
      gateReportJunit(report),
    );
    const tripped = results.filter((result) => result.trips).length;
    const count = (status: string): number => results.filter((result) => result.status === status).length;
    return {
      status: tripped > 0 ? 'tripped' : 'ok',
      // Same split as the gate report; whether an unknown gate trips is on_unknown_gate's business.
      detail: `${results.length} checked: ${count('pass')} passed, ${count('fail')} failed, ${count('unknown')} unknown`,
    };
  });
}

/** 7. Write the audit bundle of the run. */
export async function bundleStep(state: RunState): Promise<void> {
  const { config } = state;
  if (!config.bundle.enabled) {
    state.skip('bundle', 'disabled in the config');
    return;
  }
  await state.step('bundle', ['reports', 'gates'], async () => {
    const [{ writeBundle }, { loadSigningKey }] = await Promise.all([
      import('./bundle.js'),
      import('./bundle-signature.js'),
    ]);
    const signKey = config.bundle.sign_key;
    const signingKey = signKey === undefined ? undefined : await loadSigningKey(signKey);
    const snapshot = requireSnapshot(state);
    const files = state.reportFiles.flatMap((report) =>
      report.files.map((file) => ({
        name: `reports/${path.relative(report.base, file).split(path.sep).join('/')}`,
        path: file,
      })),
    );
    for (const [name, file] of [
      ['gate-report.md', state.paths.gateMd],
      ['gate-report.json', state.paths.gateJson],
      ['gate-report.junit.xml', state.paths.gateJunit],
      ['diff.md', state.paths.diffMd],
      ['diff.json', state.paths.diffJson],
    ] as const) {
      if (file !== null) files.push({ name, path: file });
    }
    const result = await writeBundle({
      out: path.join(requireRunDir(state), `airt-report-${snapshot.snapshotId}.zip`),
      snapshotDir: snapshot.dir,
      includeSnapshot: config.bundle.include_snapshot,
      files,
      signingKey,
      // The verify step's result: the snapshot is not hashed again (unless its manifest changed since).
      verified: state.verification ?? undefined,
    });
    state.paths.bundle = result.path;
    state.outputs.push({ path: result.path, sha256: result.sha256, bytes: result.bytes });
    if (result.signature_path !== null) await state.recordOutput(result.signature_path);
    return { detail: `${result.entries.length} entries, ${path.basename(result.path)}` };
  });
}

/** 8. Keep the newest N finished snapshots on disk — only when nothing in this run failed. */
export async function retentionStep(state: RunState): Promise<void> {
  const { config } = state;
  const keepLast = config.retention.keep_last;
  if (keepLast === null) {
    state.skip('retention', 'keep_last not set: every snapshot is kept');
    return;
  }
  if (state.steps.some((step) => step.status === 'failed')) {
    state.skip('retention', 'a step failed: nothing is deleted');
    return;
  }
  await state.step('retention', ['snapshot'], async () => {
    const snapshot = requireSnapshot(state);
    const { org, workspace } = config.connection;
    const result = await applyRetention({
      workspaceDir: state.workspaceDir,
      org,
      workspace,
      keepLast,
      // The gated baseline's directory stays while this run cannot replace it (a partial snapshot
      // never becomes the baseline): after a few partial nights it is older than the newest
      // keep_last, yet the next diff and gates still compare with it (its rows stay in the database
      // below), so it must stay verifiable and bundleable. A complete run replaces it at its end.
      protect: [
        snapshot.snapshotId,
        ...(state.recordedBaseline && snapshot.status !== 'complete' ? [state.recordedBaseline] : []),
      ],
    });
    // Bytes per inode: snapshots share unchanged files, so per-directory sums would overstate both.
    state.retention = {
      kept: result.kept,
      deleted: result.deleted,
      kept_bytes: result.keptBytes,
      freed_bytes: result.freedBytes,
    };
    // The database keeps what the disk keeps: rows of the workspace's other snapshots, and trial
    // contents only they held, are deleted in one transaction (warehouse/prune.ts). The gated
    // baseline's rows stay: the next run's diff and gates compare with it.
    const keep = [...result.kept, snapshot.snapshotId];
    if (state.recordedBaseline) keep.push(state.recordedBaseline);
    const { pruneWarehouse } = await import('../warehouse/prune.js');
    state.closeWarehouse();
    const pruned = await pruneWarehouse(config.database, {
      org,
      workspace,
      keep,
      reason: { run: snapshot.snapshotId, keepLast },
      now: () => state.now(),
    });
    return {
      detail:
        `kept ${result.kept.length} (${formatBytes(result.keptBytes)} on disk), ` +
        `deleted ${result.deleted.length} (${formatBytes(result.freedBytes)} freed); ` +
        `database: pruned ${pruned.snapshots.length} snapshot(s), ${pruned.trialRows} trial row(s)`,
    };
  });
}

function requireSnapshot(state: RunState): NonNullable<RunState['snapshot']> {
  if (state.snapshot === null) throw new Error('no snapshot (the snapshot step did not finish)');
  return state.snapshot;
}

function requireGateProjects(state: RunState): GateProjects {
  if (state.gateProjects === null) throw new Error('no gate scope (the load step did not finish)');
  return state.gateProjects;
}

function requireRunDir(state: RunState): string {
  const dir = state.runDir;
  if (dir === null) throw new Error('no run directory (the snapshot step did not finish)');
  return dir;
}

async function writeOutput(state: RunState, file: string, text: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeOutputFile(file, text);
  await state.recordOutput(file);
  return file;
}
