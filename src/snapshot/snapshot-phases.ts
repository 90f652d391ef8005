/**
 * Phases 1-5 of a snapshot (see the diagram in take-snapshot.ts): what to fetch, in which order, and
 * which warnings the bodies give rise to. Storage, reuse, validation and failure recording live in
 * FileStore.
 *
 * Trial lists start as soon as their summary is stored, so the connections never idle between
 * phases; which project "owns" an assessment listed by two projects is settled afterwards, in the
 * fixed project order, so the manifest does not depend on which response arrived first.
 */
import { InvalidPathSegmentError } from '../api/paths.js';
import {
  readConfigFacts,
  readPageFacts,
  readSummaryFacts,
  type AssessmentRef,
  type ConfigFacts,
  type PageFacts,
  type SummaryFacts,
} from './check-body.js';
import {
  configTarget,
  evaluationPageCount,
  evaluationPageTarget,
  projectDir,
  projectKeysFromJobs,
  summaryTarget,
  trialsTarget,
  type FetchTarget,
} from './fetch-plan.js';
import type { FileStore } from './file-store.js';
import type { RunStopper } from './run-stopper.js';
import type { Manifest, ManifestWarning } from './manifest.js';
import type { ProgressReporter } from './progress.js';
import { reusableTrialFile, type PreviousSnapshot } from './since.js';
import { findings } from './phase-findings.js';

/** Rounds of "the total grew, fetch the new pages" before we stop chasing a moving listing. */
const MAX_PAGE_ROUNDS = 5;

export interface PhaseContext {
  org: string;
  workspace: string;
  options: Manifest['options'];
  journalFile: string | undefined;
  store: FileStore;
  stopper: RunStopper;
  progress: ProgressReporter;
  previous: PreviousSnapshot | undefined;
  /** Set by phase 1 (for the 426 message). */
  versions?: ConfigFacts;
}

export interface PhaseOutcome {
  apiVersion: string | null;
  appVersion: string | null;
  projects: Manifest['projects'];
  warnings: ManifestWarning[];
}

interface ProjectOutcome {
  key: string;
  fromJobs: boolean;
  status: 'ok' | 'not_found' | 'failed';
  facts: SummaryFacts | undefined;
}

function projectIdOf(project: ProjectOutcome): string | null {
  return project.facts?.projectId ?? (project.fromJobs ? project.key : null);
}

/**
 * Waits for every task (a failing one stops the others through the stopper) and rethrows what
 * stopped the run, so no task is still writing when the caller cleans up.
 */
async function settle<T>(context: PhaseContext, tasks: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(
    tasks.map((task) =>
      task.catch((error: unknown) => {
        context.stopper.stop(error);
        throw error;
      }),
    ),
  );
  if (context.stopper.stopped) throw context.stopper.error;
  return results.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}

export async function runPhases(context: PhaseContext): Promise<PhaseOutcome> {
  const warnings: ManifestWarning[] = [];
  const { store, progress } = context;

  // 1 · config (no token; versions for the manifest and for a 426 message), sent together with the
  // first evaluation page, which does not depend on it: one round trip less before the bulk starts
  progress.plan(1);
  const configTask = store.obtain(configTarget(), readConfigFacts);
  const configured = configTask.then((config) => {
    context.versions = typeof config === 'object' ? config.facts : { apiVersion: null, appVersion: null };
  });
  // Observed now (settled below): if the pages stop the run first, its rejection is not unhandled.
  configured.catch(() => undefined);

  // 2 · evaluation pages; without --project keys, every job project id a page names is already
  // covered by nothing else, so its summary starts as soon as that page is stored (the connections do
  // not idle until the last page is in)
  const trials = new TrialLists(context);
  const early =
    context.options.projects.length === 0 ? new Map<string, Promise<ProjectOutcome>>() : undefined;
  const pages = evaluationPages(context, warnings, configured, (ids) => {
    if (!early) return;
    const fresh = projectKeysFromJobs(ids, new Set(early.keys()));
    for (const [key, outcome] of summaryTasks(context, fresh, true, trials)) {
      // Observed now (settled with the others later): if the pages fail first, its rejection is not unhandled.
      outcome.catch(() => undefined);
      early.set(key, outcome);
    }
  });
  // Both settled before going on (no request of this phase is left running), the config's failure first.
  const [configOutcome, pagesOutcome] = await Promise.allSettled([settle(context, [configured]), pages]);
  if (configOutcome.status === 'rejected') throw configOutcome.reason;
  if (pagesOutcome.status === 'rejected') throw pagesOutcome.reason;
  const jobProjectIds = pagesOutcome.value;
  const versions: ConfigFacts = context.versions ?? { apiVersion: null, appVersion: null };

  // 3 + 4 · summaries (--project keys first, then job project ids not already covered), each
  // summary's trial lists started as soon as it is stored
  const projects = await summaries(context, context.options.projects, false, trials);
  const covered = new Set<string>(context.options.projects);
  for (const project of projects) if (project.facts?.projectId) covered.add(project.facts.projectId);
  projects.push(
    ...(await summaries(context, projectKeysFromJobs(jobProjectIds, covered), true, trials, early)),
  );
  await settle(context, trials.tasks);

  // 5 · findings from the triage journal
  if (context.journalFile) await findings(context, context.journalFile, warnings);

  await store.drain();
  settleOwnership(context, projects, warnings);
  for (const project of projects) {
    if (project.status === 'not_found') {
      warnings.push({
        code: 'project_not_found',
        message: project.fromJobs
          ? `Project ${JSON.stringify(project.key)} returned 404 not found; it is not in this snapshot.`
          : `Requested project ${JSON.stringify(project.key)} returned 404 not found in ${context.org}/${context.workspace}; ` +
            'it is not in this snapshot (check the project slug or id).',
        project: project.key,
      });
    }
  }
  for (const entry of store.entries.values()) {
    if (entry.kind === 'trials' && entry.records === context.options.trials_limit) {
      warnings.push({
        code: 'possibly_truncated',
        message:
          `The trial list of assessment ${entry.assessment_id ?? '?'} has exactly the trials limit ` +
          `(${context.options.trials_limit}) entries and may be cut off.`,
        path: entry.path,
        ...(entry.project !== undefined ? { project: entry.project } : {}),
        ...(entry.assessment_id !== undefined ? { assessment_id: entry.assessment_id } : {}),
      });
    }
  }

  return {
    apiVersion: versions.apiVersion,
    appVersion: versions.appVersion,
    projects: projects.map((p) => ({
      key: p.key,
      dir: projectDir(p.key),
      project_id: projectIdOf(p),
      status: p.status,
      assessments: p.facts?.assessments.length ?? 0,
    })),
    warnings,
  };
}

/** Fetches every page; returns the project ids of all jobs, in page order. */
async function evaluationPages(
  context: PhaseContext,
  warnings: ManifestWarning[],
  configured: Promise<unknown>,
  onProjectIds: (ids: readonly string[]) => void,
): Promise<string[]> {
  const { store, progress, org, workspace } = context;
  const pages = new Map<number, PageFacts>();
  const fetchPages = async (from: number, to: number): Promise<void> => {
    const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    progress.plan(numbers.length);
    const results = await settle(
      context,
      numbers.map(async (page) => {
        // The page's project ids go out as soon as its body has arrived (their summaries start then),
        // or, for a body not held in memory, once it is stored.
        let announced = false;
        const result = await store.obtain(evaluationPageTarget(org, workspace, page), readPageFacts, {
          ...(page === 1 ? { stopAfter: configured } : {}),
          onFacts: (facts) => {
            announced = true;
            onProjectIds(facts.projectIds);
          },
        });
        if (typeof result === 'object' && !announced) onProjectIds(result.facts.projectIds);
        return result;
      }),
    );
    results.forEach((result, i) => {
      if (typeof result === 'object') pages.set(numbers[i]!, result.facts);
    });
  };

  await fetchPages(1, 1);
  const first = pages.get(1);
  if (!first) return [];
  let fetched = 1;
  for (let round = 0; round < MAX_PAGE_ROUNDS; round++) {
    const largestTotal = Math.max(...[...pages.values()].map((p) => p.total ?? 0));
    const wanted = evaluationPageCount(largestTotal);
    if (wanted <= fetched) break;
    await fetchPages(fetched + 1, wanted);
    fetched = wanted;
  }

  const ordered = [...pages.entries()].sort(([a], [b]) => a - b);
  for (const [page, facts] of ordered) {
    if (facts.total !== first.total) {
      warnings.push({
        code: 'total_changed',
        message: `The evaluation job total changed while paging: page 1 said ${first.total}, page ${page} said ${facts.total}.`,
        path: evaluationPageTarget(org, workspace, page).file,
      });
    }
  }
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  const projectIds: string[] = [];
  for (const [, facts] of ordered) {
    for (const id of facts.jobIds) {
      if (seen.has(id)) duplicates.add(id);
      seen.add(id);
    }
    projectIds.push(...facts.projectIds);
  }
  for (const id of [...duplicates].sort()) {
    warnings.push({
      code: 'duplicate_id',
      message: `Evaluation job ${id} appears on more than one page (the listing changed while paging).`,
    });
  }
  return projectIds;
}

/**
 * Starts the summary of each of `keys` (skipping ids that cannot be a path segment, such as '..': not
 * requestable); each task starts the summary's trial lists once it is stored.
 */
function summaryTasks(
  context: PhaseContext,
  keys: readonly string[],
  fromJobs: boolean,
  trials: TrialLists,
): Map<string, Promise<ProjectOutcome>> {
  const { store, progress, org, workspace } = context;
  const targets: { key: string; target: FetchTarget }[] = [];
  for (const key of keys) {
    try {
      targets.push({ key, target: summaryTarget(org, workspace, key) });
    } catch (error) {
      if (!(error instanceof InvalidPathSegmentError)) throw error;
    }
  }
  progress.plan(targets.length);
  const tasks = new Map<string, Promise<ProjectOutcome>>();
  for (const { key, target } of targets) {
    tasks.set(
      key,
      (async (): Promise<ProjectOutcome> => {
        // The trial lists start as soon as the summary has arrived, while its file is being written.
        let started: ProjectOutcome | undefined;
        const startTrials = (facts: SummaryFacts): ProjectOutcome => {
          started = { key, fromJobs, status: 'ok', facts };
          trials.start(started);
          return started;
        };
        // A job's project may have been deleted since (a warning); one the user asked for must exist.
        const result = await store.obtain(target, readSummaryFacts, {
          notFoundIsResult: true,
          notFoundIsFailure: !fromJobs,
          onFacts: startTrials,
        });
        if (result === 'not_found' || result === 'failed')
          return { key, fromJobs, status: result, facts: undefined };
        return started ?? startTrials(result.facts);
      })(),
    );
  }
  return tasks;
}

/** The summaries of `keys`, in that order: those in `started` reused, the others started now. */
async function summaries(
  context: PhaseContext,
  keys: readonly string[],
  fromJobs: boolean,
  trials: TrialLists,
  started?: ReadonlyMap<string, Promise<ProjectOutcome>>,
): Promise<ProjectOutcome[]> {
  const fresh = summaryTasks(
    context,
    keys.filter((key) => !started?.has(key)),
    fromJobs,
    trials,
  );
  const tasks: Promise<ProjectOutcome>[] = [];
  for (const key of keys) {
    const task = started?.get(key) ?? fresh.get(key);
    if (task) tasks.push(task);
  }
  // Early summaries no later job names (none: pages only add ids) would be left unawaited; settle all.
  const unused = [...(started?.entries() ?? [])].filter(([key]) => !keys.includes(key));
  await settle(
    context,
    unused.map(([, task]) => task),
  );
  return settle(context, tasks);
}

/** Starts the trial list of every assessment once (the first summary to list it wins the race). */
class TrialLists {
  readonly tasks: Promise<unknown>[] = [];
  private readonly claimed = new Set<string>();
  constructor(private readonly context: PhaseContext) {}

  start(project: ProjectOutcome): void {
    const { store, progress, org, workspace, options, previous } = this.context;
    const planned: { target: FetchTarget; assessment: AssessmentRef }[] = [];
    for (const assessment of project.facts?.assessments ?? []) {
      if (this.claimed.has(assessment.id)) continue;
      this.claimed.add(assessment.id);
      try {
        const target = trialsTarget(
          org,
          workspace,
          assessment.id,
          { limit: options.trials_limit, jailbreaksOnly: options.jailbreaks_only },
          { key: project.key, id: projectIdOf(project) },
        );
        planned.push({ target, assessment });
      } catch (error) {
        if (!(error instanceof InvalidPathSegmentError)) throw error;
      }
    }
    progress.plan(planned.length);
    for (const { target, assessment } of planned) {
      const reusable = previous ? reusableTrialFile(previous, assessment, target.requestPath) : undefined;
      const task = store.obtain(target, undefined, {
        extra: { assessment_updated_at: assessment.updatedAt, assessment_status: assessment.status },
        ...(reusable ? { reuse: reusable } : {}),
      });
      // Observed now (settled at the end of phase 4): a run that stops earlier leaves no unhandled rejection.
      task.catch(() => undefined);
      this.tasks.push(task);
    }
  }
}

/**
 * An assessment listed by several projects belongs to the first of them in project order (flags as
 * given, then job project ids sorted); its trial file and any failure are labelled accordingly and a
 * duplicate_id warning names both projects.
 */
function settleOwnership(
  context: PhaseContext,
  projects: readonly ProjectOutcome[],
  warnings: ManifestWarning[],
): void {
  const owner = new Map<string, ProjectOutcome>();
  /** project id → the outcome first listing it. */
  const byId = new Map<string, ProjectOutcome>();
  for (const project of projects) {
    // One project asked for twice (`--project KEY --project ID`): one warning, not one per assessment.
    const id = project.facts?.projectId;
    const same = id ? byId.get(id) : undefined;
    if (same) {
      warnings.push({
        code: 'duplicate_project',
        message:
          `Projects ${JSON.stringify(same.key)} and ${JSON.stringify(project.key)} are one project (id ${id}), ` +
          `asked for twice; its trials are stored once, and a load of this snapshot loads it once, as ${JSON.stringify(same.key)}.`,
        project: project.key,
      });
      continue;
    }
    if (id) byId.set(id, project);
    for (const assessment of project.facts?.assessments ?? []) {
      const first = owner.get(assessment.id);
      if (!first) {
        owner.set(assessment.id, project);
        continue;
      }
      if (first === project) continue;
      warnings.push({
        code: 'duplicate_id',
        message:
          `Assessment ${assessment.id} appears in projects ${JSON.stringify(first.key)} and ` +
          `${JSON.stringify(project.key)}; its trials are stored once, under the first.`,
        project: project.key,
        assessment_id: assessment.id,
      });
    }
  }
  const { store } = context;
  for (const [file, entry] of store.entries) {
    const project =
      entry.kind === 'trials' && entry.assessment_id ? owner.get(entry.assessment_id) : undefined;
    if (project)
      store.entries.set(file, { ...entry, project: project.key, project_id: projectIdOf(project) });
  }
  for (const failure of store.failures) {
    const project = failure.assessment_id ? owner.get(failure.assessment_id) : undefined;
    if (project) failure.project = project.key;
  }
}
