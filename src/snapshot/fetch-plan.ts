/**
 * What a snapshot fetches and where each body goes: one `FetchTarget` per request, built from the
 * API paths and the filesystem-safe names. Pure functions, no I/O, so the layout is defined here
 * once and the orchestrator only decides *when* to fetch.
 *
 * Layout (`airt-snapshot/1`):
 * ```
 * config.json                          GET /api/v1/config
 * evaluations/page-0001.json …         GET …/evaluations?page=N&page_size=100
 * projects/<safe key>/summary.json     GET …/airt/projects/{key}/summary
 * trials/<safe assessment id>.json     GET …/airt/assessments/{id}/traces/trials?limit=N[&jailbreaks_only=true]
 * findings/<safe finding id>.json      copied from the triage journal (no GET exists for a finding)
 * ```
 */
import { apiPaths, pathWithQuery } from '../api/paths.js';
import type { RawRequest } from '../api/client-types.js';
import { EVALUATION_PAGE_BOUNDS } from '../api/schemas.js';
import type { FileKind } from './manifest.js';
import { safeSegment } from './safe-path.js';

/** Page size of the evaluation listing: the spec's maximum, for the fewest requests. */
const EVALUATION_PAGE_SIZE = EVALUATION_PAGE_BOUNDS.page_size.max;
/** Hard bound on evaluation pages, whatever `total` claims (1,000,000 jobs). */
const MAX_EVALUATION_PAGES = 10_000;
/** Default and upper bound of the trial list `limit` (the service family documents 1–5000). */
export const DEFAULT_TRIALS_LIMIT = 5000;

export interface FetchTarget {
  kind: FileKind;
  /** Relative POSIX path inside the snapshot directory. */
  file: string;
  request: RawRequest & { method: 'GET' };
  /** Path and query exactly as sent, for the manifest. */
  requestPath: string;
  /** Identity fields copied into the manifest entry. */
  identity: { project?: string; project_id?: string | null; assessment_id?: string; page?: number };
}

function target(
  kind: FileKind,
  file: string,
  request: FetchTarget['request'],
  identity: FetchTarget['identity'] = {},
): FetchTarget {
  return { kind, file, request, requestPath: pathWithQuery(request.path, request.query), identity };
}

export function configTarget(): FetchTarget {
  return target('config', 'config.json', { method: 'GET', path: apiPaths.config(), auth: false });
}

function evaluationPageFile(page: number): string {
  return `evaluations/page-${String(page).padStart(4, '0')}.json`;
}

export function evaluationPageTarget(org: string, workspace: string, page: number): FetchTarget {
  return target(
    'evaluations_page',
    evaluationPageFile(page),
    {
      method: 'GET',
      path: apiPaths.evaluations(org, workspace),
      query: { page, page_size: EVALUATION_PAGE_SIZE },
    },
    { page },
  );
}

/** Pages 1..n that hold `total` items (at least page 1), bounded by MAX_EVALUATION_PAGES. */
export function evaluationPageCount(total: number): number {
  return Math.min(MAX_EVALUATION_PAGES, Math.max(1, Math.ceil(total / EVALUATION_PAGE_SIZE)));
}

/** Directory of a project under `projects/`. */
export function projectDir(projectKey: string): string {
  return safeSegment(projectKey);
}

export function summaryTarget(org: string, workspace: string, projectKey: string): FetchTarget {
  return target(
    'project_summary',
    `projects/${projectDir(projectKey)}/summary.json`,
    { method: 'GET', path: apiPaths.summary(org, workspace, projectKey) },
    { project: projectKey },
  );
}

export interface TrialOptions {
  limit: number;
  jailbreaksOnly: boolean;
}

export function trialsTarget(
  org: string,
  workspace: string,
  assessmentId: string,
  options: TrialOptions,
  project: { key: string; id: string | null },
): FetchTarget {
  return target(
    'trials',
    `trials/${safeSegment(assessmentId)}.json`,
    {
      method: 'GET',
      path: apiPaths.trials(org, workspace, assessmentId),
      // jailbreaks_only is sent only when asked for: the service's default is left to the service.
      query: { limit: options.limit, jailbreaks_only: options.jailbreaksOnly ? true : undefined },
    },
    { project: project.key, project_id: project.id, assessment_id: assessmentId },
  );
}

export function findingFile(findingId: string): string {
  return `findings/${safeSegment(findingId)}.json`;
}

/**
 * Projects to summarize: the `--project` flags first (in the order given), then every project id
 * seen in evaluation jobs that is not already covered (by key, or by the project_id a flag's summary
 * reported), sorted for a stable order. De-duplicated.
 */
export function projectKeysFromJobs(jobProjectIds: Iterable<string>, covered: ReadonlySet<string>): string[] {
  return [...new Set(jobProjectIds)].filter((id) => !covered.has(id)).sort();
}
