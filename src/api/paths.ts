/**
 * The six operations' paths (see the API spec, "Endpoints"). Every segment that comes from a caller
 * or from API data is percent-encoded, so a slug or id can never add a path segment, a query string
 * or a fragment to the request.
 */
import { UsageError } from '../errors.js';
import type { QueryValue } from './client-types.js';

/** Thrown before any request is made when an identifier cannot be used as one URL path segment. */
export class InvalidPathSegmentError extends UsageError {
  constructor(
    readonly what: string,
    readonly value: string,
  ) {
    super(
      `The ${what} ${JSON.stringify(value)} cannot be used in a request path: it is empty or a dot segment. ` +
        `Check the ${what} you passed.`,
    );
  }
}

/**
 * Encodes one path segment. `.` and `..` would be resolved away by the URL parser and address another
 * resource; encoding does not help (parsers treat `%2e` as a dot too), so they are rejected. A literal
 * `%2e` in a value is safe: its `%` is encoded.
 */
function encodeSegment(value: string, what: string): string {
  const encoded = encodeURIComponent(value);
  if (encoded === '' || /^\.{1,2}$/.test(encoded)) throw new InvalidPathSegmentError(what, value);
  return encoded;
}

function orgWorkspace(org: string, workspace: string): string {
  return `/api/v1/org/${encodeSegment(org, 'organization')}/ws/${encodeSegment(workspace, 'workspace')}`;
}

/**
 * `path?a=1&b=true`: the path and query string a request is sent with, leaving out undefined values, in
 * the order given. The client builds its URLs with it, and the snapshot records the same text as each
 * file's request path (what `--since` and `--resume` compare).
 */
export function pathWithQuery(pathname: string, query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.append(key, String(value));
  }
  const search = params.toString();
  return search ? `${pathname}?${search}` : pathname;
}

/** Request paths of the six operations, relative to the base URL, already percent-encoded. */
export const apiPaths = {
  /** Operation 6: public client configuration (no Authorization). */
  config(): string {
    return '/api/v1/config';
  },
  /** Operation 1: project summary; `project` is a slug or UUID. */
  summary(org: string, workspace: string, project: string): string {
    return `${orgWorkspace(org, workspace)}/airt/projects/${encodeSegment(project, 'project')}/summary`;
  },
  /** Operation 2: one finding (attack run), PATCHed by triage. */
  finding(org: string, workspace: string, findingId: string): string {
    return `${orgWorkspace(org, workspace)}/airt/findings/${encodeSegment(findingId, 'finding id')}`;
  },
  /** Operation 3: an organization's credit auto-refill settings (PUT). */
  autoRefill(org: string): string {
    return `/api/v1/org/${encodeSegment(org, 'organization')}/credits/auto-refill`;
  },
  /** Operation 4: evaluation jobs of a workspace (paginated). */
  evaluations(org: string, workspace: string): string {
    return `${orgWorkspace(org, workspace)}/evaluations`;
  },
  /** Operation 5: trial spans of one assessment (a bare JSON array). */
  trials(org: string, workspace: string, assessmentId: string): string {
    return `${orgWorkspace(org, workspace)}/airt/assessments/${encodeSegment(assessmentId, 'assessment id')}/traces/trials`;
  },
} as const;
