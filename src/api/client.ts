/**
 * The API client: one typed method per operation of the spec, each returning a validated value.
 *
 * ```
 * typed method ─▶ send(request, consume)
 *                   └─ retry loop (retry.ts) ── bounded by attempts and elapsed time
 *                        └─ concurrency limit (p-limit, shared by every request of this client)
 *                             └─ one attempt (attempt.ts): fetch + consume, under a per-attempt timeout
 *                                  ├─ non-2xx → typed error (errors.ts), retryable or not by method
 *                                  └─ 2xx body consume finds not JSON → MalformedBodyError, retried like a 502
 *               ◀─ body text ─ JSON.parse + parseTolerant → { value, unknownKeys } | ResponseSchemaError
 * ```
 *
 * The token is only ever put into the Authorization header of operations 1-5; service text copied
 * into errors is redacted of it; redirects are not followed, so the header never goes elsewhere.
 */
import pLimit from 'p-limit';
import { Agent, fetch as undiciFetch, type Response } from 'undici';
import type { z } from 'zod';
import { VERSION } from '../version.js';
import { attemptRequest, type PreparedRequest } from './attempt.js';
import type { ApiClient, ApiClientOptions, Parsed, RawRequest } from './client-types.js';
import { redactSecret, textSnippet } from './error-body.js';
import {
  MalformedBodyError,
  ResponseSchemaError,
  UnusableBodyError,
  type MalformedBodyFields,
  type RequestTarget,
} from './errors.js';
import { checkToken, normalizeBaseUrl } from './connection-settings.js';
import { collectAllEvaluations } from './paginate-evaluations.js';
import { parseTolerant } from './parse.js';
import { apiPaths, pathWithQuery } from './paths.js';
import { abortableSleep, resolveRetryPolicy, runWithRetry, type AttemptOutcome } from './retry.js';
import {
  AutoRefillConfigResponseSchema,
  ConfigResponseSchema,
  EvaluationJobListSchema,
  FindingDetailSchema,
  ProjectSummarySchema,
  TrialListSchema,
} from './schemas.js';

export type {
  ApiClient,
  ApiClientOptions,
  ListEvaluationsParams,
  ListTrialsParams,
  Parsed,
  QueryValue,
  RawRequest,
} from './client-types.js';
export type { AllEvaluations, ListingStopReason } from './paginate-evaluations.js';
export { DEFAULT_RETRY_POLICY, type RetryEvent, type RetryPolicy } from './retry.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_CONCURRENCY = 8;

/** What a typed method reads from a 2xx answer before validating it. */
interface ReceivedBody {
  status: number;
  contentType: string;
  text: string;
}

/**
 * Creates a client for one service. Options are checked here, so a bad value fails before any request.
 * Call `close()` when done to release the keep-alive connections.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const tokenSource = options.tokenSource;
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const token = checkToken(options.token);
  const timeoutMs = positiveInteger(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const concurrency = positiveInteger(options.concurrency ?? DEFAULT_CONCURRENCY, 'concurrency');
  const policy = resolveRetryPolicy(options.retry);
  const agent = options.fetch
    ? undefined
    : new Agent({ connections: concurrency, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const fetchImpl = options.fetch ?? undiciFetch;
  const limit = pLimit(concurrency);
  const userAgent = `airt-report/${VERSION}${options.userAgentSuffix ? ` ${options.userAgentSuffix}` : ''}`;
  const redact = (text: string): string => redactSecret(text, token);
  let knownApiVersion: string | undefined;
  let closed = false;

  function prepare(request: RawRequest): PreparedRequest {
    const target: RequestTarget = {
      method: request.method,
      path: pathWithQuery(request.path, request.query),
    };
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if ((request.auth ?? true) && token !== undefined) headers.authorization = `Bearer ${token}`;
    return {
      target,
      url: `${baseUrl}${target.path}`,
      init: {
        method: request.method,
        headers,
        // Never follow: a redirect to another host would otherwise be a place the request (and, for a
        // same-origin hop, the token) goes that the user did not name.
        redirect: 'manual',
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        ...(agent ? { dispatcher: agent } : {}),
      },
    };
  }

  /** send() plus the number of attempts it took, for errors raised after it returns. */
  async function sendCounted<T>(
    request: RawRequest,
    consume: (response: Response) => Promise<T>,
  ): Promise<{ value: T; attempts: number; target: RequestTarget }> {
    if (closed) throw new Error('This API client was closed; create a new one.');
    const prepared = prepare(request);
    let attempts = 0;
    const value = await runWithRetry(
      async (attempt) => {
        attempts = attempt;
        const outcome = await limit(() =>
          attemptRequest(prepared, malformedAs(prepared.target, attempt, consume), attempt, {
            fetch: fetchImpl,
            timeoutMs,
            signal: options.signal,
            clock: () => (options.now?.() ?? new Date()).getTime(),
            apiVersion: () => knownApiVersion,
            redact,
            tokenSource,
          }),
        );
        return repeatMalformed(outcome, prepared.target);
      },
      {
        method: prepared.target.method,
        path: prepared.target.path,
        policy,
        random: options.random ?? Math.random,
        sleep: options.sleep ?? abortableSleep,
        now: options.monotonicNow ?? (() => performance.now()),
        signal: options.signal,
        onRetry: options.onRetry,
      },
    );
    return { value, attempts, target: prepared.target };
  }

  /**
   * `consume` with an UnusableBodyError it throws turned into a MalformedBodyError naming the request,
   * its attempt, and what the body was (status, content-type, size, its start with the token removed).
   */
  function malformedAs<T>(
    target: RequestTarget,
    attempt: number,
    consume: (response: Response) => Promise<T>,
  ): (response: Response) => Promise<T> {
    return async (response) => {
      try {
        return await consume(response);
      } catch (error) {
        if (!(error instanceof UnusableBodyError)) throw error;
        const fields: MalformedBodyFields = {
          status: response.status,
          contentType: response.headers.get('content-type') ?? undefined,
          bytes: error.bytes,
          reason: redact(error.reason),
          snippet: error.start === undefined ? undefined : textSnippet(redact(error.start)),
        };
        throw new MalformedBodyError(target, fields, attempt);
      }
    };
  }

  async function requestJson<S extends z.ZodType>(
    schema: S,
    request: RawRequest,
  ): Promise<Parsed<z.output<S>>> {
    const { value: received, attempts, target } = await sendCounted(request, readBody);
    return validateBody(schema, received, target, attempts, token);
  }

  const client: ApiClient = {
    get knownApiVersion() {
      return knownApiVersion;
    },

    async send<T>(request: RawRequest, consume: (response: Response) => Promise<T>): Promise<T> {
      return (await sendCounted(request, consume)).value;
    },

    async getConfig() {
      const parsed = await requestJson(ConfigResponseSchema, {
        method: 'GET',
        path: apiPaths.config(),
        auth: false,
      });
      knownApiVersion = parsed.value.api_version;
      return parsed;
    },

    async getProjectSummary(org, workspace, project) {
      return requestJson(ProjectSummarySchema, {
        method: 'GET',
        path: apiPaths.summary(org, workspace, project),
      });
    },

    async updateFinding(org, workspace, findingId, body) {
      return requestJson(FindingDetailSchema, {
        method: 'PATCH',
        path: apiPaths.finding(org, workspace, findingId),
        body,
      });
    },

    async configureAutoRefill(org, body) {
      return requestJson(AutoRefillConfigResponseSchema, {
        method: 'PUT',
        path: apiPaths.autoRefill(org),
        body,
      });
    },

    async listEvaluations(org, workspace, params = {}) {
      return requestJson(EvaluationJobListSchema, {
        method: 'GET',
        path: apiPaths.evaluations(org, workspace),
        query: {
          page: params.page,
          page_size: params.pageSize,
          project_id: params.projectId,
          status: params.status,
        },
      });
    },

    async listAllEvaluations(org, workspace, params = {}) {
      return collectAllEvaluations((page, pageSize) =>
        client.listEvaluations(org, workspace, { ...params, page, pageSize }),
      );
    },

    async listTrials(org, workspace, assessmentId, params = {}) {
      return requestJson(TrialListSchema, {
        method: 'GET',
        path: apiPaths.trials(org, workspace, assessmentId),
        query: { jailbreaks_only: params.jailbreaksOnly, limit: params.limit },
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      await agent?.close();
    },
  };
  return client;
}

/**
 * A 2xx body that is not valid JSON did not arrive as the service sent it (cut short, or replaced by
 * a proxy's page): a GET or PUT is repeated as after a 502 (attempt.ts's rule for idempotent
 * methods). A PATCH is not: its change was applied, only the answer is unusable.
 */
function repeatMalformed<T>(outcome: AttemptOutcome<T>, target: RequestTarget): AttemptOutcome<T> {
  if (outcome.ok || !(outcome.error instanceof MalformedBodyError) || target.method === 'PATCH') {
    return outcome;
  }
  return { ...outcome, retryable: true, reason: `${outcome.error.status} body not valid JSON` };
}

async function readBody(response: Response): Promise<ReceivedBody> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** JSON.parse + parseTolerant; a body that is not JSON or does not fit throws ResponseSchemaError. */
function validateBody<S extends z.ZodType>(
  schema: S,
  received: ReceivedBody,
  target: RequestTarget,
  attempts: number,
  token: string | undefined,
): Parsed<z.output<S>> {
  let data: unknown;
  try {
    data = JSON.parse(received.text);
  } catch {
    const text = redactSecret(received.text, token);
    const kind = received.contentType ? `content-type ${received.contentType}` : 'no content-type';
    throw new ResponseSchemaError(
      target,
      {
        status: received.status,
        issues: [
          { path: '$', code: 'invalid_json', message: `body is not JSON (${kind}): "${textSnippet(text)}"` },
        ],
        body: text.slice(0, 10_000),
      },
      attempts,
    );
  }
  const result = parseTolerant(schema, data);
  if (result.ok) return { value: result.value, unknownKeys: result.unknownKeys };
  throw new ResponseSchemaError(
    target,
    {
      status: received.status,
      issues: result.issues,
      body: redactedBody(received.text, data, token),
      unknownKeys: result.unknownKeys,
    },
    attempts,
  );
}

/** The parsed body with the token removed from every string (re-parsed from redacted JSON text). */
function redactedBody(text: string, data: unknown, token: string | undefined): unknown {
  if (!token || !text.includes(JSON.stringify(token).slice(1, -1))) return data;
  try {
    return JSON.parse(redactSecret(text, token)) as unknown;
  } catch {
    return '[body withheld: it contained the access token]';
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
}
