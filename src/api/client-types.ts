/**
 * The API client's public shape (CONTRACTS.md). Kept apart from the implementation so modules that
 * only need the types (pagination, commands, tests) do not pull in undici.
 */
import type { fetch as undiciFetch, Response } from 'undici';
import type { AllEvaluations } from './paginate-evaluations.js';
import type { RetryEvent, RetryPolicy } from './retry.js';
import type {
  AutoRefillConfigResponse,
  ConfigResponse,
  ConfigureAutoRefillRequest,
  EvaluationJobList,
  FindingDetail,
  ProjectSummary,
  TrialResult,
  UpdateFindingRequest,
} from './schemas.js';

/** How createApiClient talks to the service: address, token, limits, retry policy and injectable effects. */
export interface ApiClientOptions {
  /** Service address, e.g. `https://airt.example.com` (a trailing slash is fine). */
  baseUrl: string;
  /** Access token: sent as `Authorization: Bearer` on operations 1-5, never on GET /api/v1/config. */
  token?: string | undefined;
  /** Default: undici fetch over a keep-alive Agent with `concurrency` connections. */
  fetch?: typeof undiciFetch;
  /** Overrides of DEFAULT_RETRY_POLICY (6 attempts, 200 ms base, 10 s cap, 120 s total). */
  retry?: Partial<RetryPolicy>;
  /** One attempt (request and reading its body) must finish within this; default 30_000. */
  timeoutMs?: number;
  /** Requests in flight at most, across all callers of this client; default 8. */
  concurrency?: number;
  /** Called before each wait between attempts (progress output). */
  onRetry?: (event: RetryEvent) => void;
  /** Aborting stops the request in flight and any wait at once; the signal's reason is thrown. */
  signal?: AbortSignal;
  /** Jitter source in [0, 1); default Math.random. */
  random?: () => number;
  /** Wait between attempts; default a timer that rejects as soon as `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Wall clock, to read HTTP-date Retry-After values; default the system clock. Every library step
   * takes its clock this way (`now?: () => Date`).
   */
  now?: () => Date;
  /** Monotonic clock in ms for the elapsed-time budget (immune to wall-clock jumps); default performance.now. */
  monotonicNow?: () => number;
  /** Appended to the User-Agent (`airt-report/0.1.0 <suffix>`), e.g. the command name. */
  userAgentSuffix?: string;
  /**
   * Where the user sets the token, as the 401 message names it; default `options.token` (the CLI
   * rewords it as its flags at its boundary; `run` passes its config key).
   */
  tokenSource?: string;
}

/** A validated body plus the keys it carried that the spec does not know (`$.items[*].new_field`). */
export interface Parsed<T> {
  value: T;
  unknownKeys: string[];
}

export type QueryValue = string | number | boolean | undefined;

/** A request by method and path, for operations the typed methods do not cover. */
export interface RawRequest {
  method: 'GET' | 'PATCH' | 'PUT';
  /** From apiPaths, already percent-encoded. */
  path: string;
  /** Undefined values are left out; booleans are sent as `true`/`false`. */
  query?: Record<string, QueryValue>;
  /** JSON-encoded when present, with `Content-Type: application/json`. */
  body?: unknown;
  /** Send the Authorization header; default true. */
  auth?: boolean;
}

/** Query parameters of the evaluation-job listing. */
export interface ListEvaluationsParams {
  page?: number;
  pageSize?: number;
  projectId?: string;
  status?: string;
}

/** Query parameters of an assessment's trial list. */
export interface ListTrialsParams {
  jailbreaksOnly?: boolean;
  limit?: number;
}

/**
 * A client for one service (createApiClient): typed operations returning validated values, raw requests,
 * close().
 */
export interface ApiClient {
  /** Operation 6, without Authorization. Remembers api_version for 426 messages. */
  getConfig(): Promise<Parsed<ConfigResponse>>;
  /** Operation 1. `project` is a slug or UUID. */
  getProjectSummary(org: string, workspace: string, project: string): Promise<Parsed<ProjectSummary>>;
  /**
   * Operation 2 (PATCH). Retried only on 429 and connection refused; a 502/504/timeout/reset throws
   * OutcomeUnknownError and is never repeated.
   */
  updateFinding(
    org: string,
    workspace: string,
    findingId: string,
    body: UpdateFindingRequest,
  ): Promise<Parsed<FindingDetail>>;
  /** Operation 3 (PUT; idempotent, so retried like a GET). */
  configureAutoRefill(
    org: string,
    body: ConfigureAutoRefillRequest,
  ): Promise<Parsed<AutoRefillConfigResponse>>;
  /** Operation 4, one page. */
  listEvaluations(
    org: string,
    workspace: string,
    params?: ListEvaluationsParams,
  ): Promise<Parsed<EvaluationJobList>>;
  /** All pages at page_size 100 until `total` is reached; de-duplicated by id; bounded loop. */
  listAllEvaluations(
    org: string,
    workspace: string,
    params?: { projectId?: string; status?: string },
  ): Promise<AllEvaluations>;
  /** Operation 5: the bare array of trial results. */
  listTrials(
    org: string,
    workspace: string,
    assessmentId: string,
    params?: ListTrialsParams,
  ): Promise<Parsed<TrialResult[]>>;
  /**
   * Low level: one logical request with auth, concurrency limit, retries and error mapping. A non-2xx
   * throws a typed error. `consume` reads the 2xx body (e.g. streams it to a temp file while hashing)
   * and runs inside the retry loop, so a GET/PUT body cut off mid-stream is retried like a failed
   * request (consume must be restartable). Returns consume's result. A consume that finds the 2xx body
   * is not valid JSON throws an UnusableBodyError: the request fails with a MalformedBodyError, and a
   * GET/PUT is retried like a 502 first. Other errors thrown by consume that are not network or abort
   * errors propagate unchanged and are not retried.
   */
  send<T>(request: RawRequest, consume: (response: Response) => Promise<T>): Promise<T>;
  /** The service's api_version once a getConfig succeeded. */
  readonly knownApiVersion: string | undefined;
  /** Closes the keep-alive connections (only those this client opened). Idempotent. */
  close(): Promise<void>;
}
