/**
 * The API client's failures, as a small hierarchy (STYLE.md practice 4). Every error names the
 * request (`GET /api/v1/org/acme/ws/main/evaluations?page=2`), says what to do, carries the exit code
 * a command should end with (1, or 2 for a blocked port), and never contains the access token: the
 * token only ever travels in a request header, and any service text copied into an error is redacted
 * first (see error-body.ts).
 *
 * These are library errors, not CLI errors: they do not extend CliError, and the settings they point
 * at are named as the library calls them (`options.baseUrl`, `options.token`). `describeWith(name)`
 * renders the same message with another spelling (the CLI's `--base-url / AIRT_BASE_URL`).
 *
 * ```
 * ApiError
 * ├─ HttpError                 non-2xx answer: status + the service's type/detail/errors[]
 * │  ├─ AuthenticationError    401: token missing or invalid
 * │  ├─ ForbiddenError         403: token lacks the rights
 * │  ├─ NotFoundError          404
 * │  └─ UpgradeRequiredError   426: the service needs a newer client
 * ├─ NetworkError              no answer: refused, reset, DNS, body cut off
 * ├─ BlockedPortError          fetch refuses the port (e.g. 6000): nothing sent, usage error (exit 2)
 * ├─ TimeoutError              no complete answer within the per-attempt timeout
 * ├─ OutcomeUnknownError       a PATCH whose effect cannot be known (502/504/timeout/reset)
 * ├─ MalformedBodyError        a 2xx body streamed to a caller (`send`) that is not valid JSON
 * └─ ResponseSchemaError       a 2xx whose body is not JSON or does not match the API schema
 * ```
 */
import { EXIT, libraryOptionName, type ExitCode, type OptionWording } from '../errors.js';
import { VERSION } from '../version.js';
import { formatIssues, type SchemaIssue } from './parse.js';
import type { ValidationErrorItem } from './schemas.js';
import { neutralizeControls } from './error-body.js';

/** The request an error is about. `path` includes the query string. */
export interface RequestTarget {
  method: string;
  path: string;
}

/** Base of every client error: knows the request and how many attempts were made. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly method: string;
  /** Request path relative to the base URL, with its query string. */
  readonly path: string;
  /** Attempts made for this logical request, including the one that produced this error. */
  readonly attempts: number;
  /** The exit code a command ends with on this error: 1, or 2 (usage) when nothing could be sent. */
  readonly exitCode: ExitCode;
  private readonly wording: OptionWording;
  constructor(
    message: string | OptionWording,
    target: RequestTarget,
    attempts: number,
    options?: { cause?: unknown; exitCode?: ExitCode },
  ) {
    const wording: OptionWording = typeof message === 'string' ? () => message : message;
    super(wording(libraryOptionName), options && 'cause' in options ? { cause: options.cause } : undefined);
    this.wording = wording;
    this.method = target.method;
    this.path = target.path;
    this.attempts = attempts;
    this.exitCode = options?.exitCode ?? EXIT.failure;
  }
  /** `GET /api/v1/…?page=2` */
  get request(): string {
    return describeRequest(this);
  }
  /** The message with the settings it points at spelled by `name` (the CLI passes its flags). */
  describeWith(name: (option: string) => string): string {
    return this.wording(name);
  }
}

/** `GET /api/v1/…?page=2`: how every message names its request. */
export function describeRequest(target: RequestTarget): string {
  return `${target.method} ${target.path}`;
}

function afterAttempts(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : '';
}

function clip(text: string, max = 500): string {
  const safe = neutralizeControls(text);
  return safe.length > max ? `${safe.slice(0, max)}…` : safe;
}

/** What the service said, as one readable clause: `validation_error: Input invalid; query.page: …`. */
function serviceSaid(fields: HttpErrorFields): string {
  const parts: string[] = [];
  const head = [fields.type, fields.detail].filter((s): s is string => Boolean(s)).map((s) => clip(s));
  if (head.length > 0) parts.push(head.join(': '));
  for (const item of (fields.errors ?? []).slice(0, 5)) {
    parts.push(`${clip(item.loc.join('.'), 100)}: ${clip(item.msg, 200)} (${clip(item.type, 60)})`);
  }
  if ((fields.errors?.length ?? 0) > 5) parts.push(`… and ${(fields.errors?.length ?? 0) - 5} more`);
  if (parts.length === 0 && fields.bodySnippet) parts.push(`non-JSON body: "${fields.bodySnippet}"`);
  // The service's detail is usually a sentence ending in "."; the messages add their own full stop after
  // this clause ("… not found in workspace 'main'. Check …"), so drop its one to avoid "..".
  return parts.join('; ').replace(/(?<!\.)\.$/, '');
}

/** Everything a non-2xx answer carried. */
export interface HttpErrorFields {
  status: number;
  statusText?: string | undefined;
  type?: string | undefined;
  detail?: string | undefined;
  errors?: ValidationErrorItem[] | undefined;
  bodySnippet?: string | undefined;
  /** Location header of a redirect we refused to follow. */
  location?: string | undefined;
}

/** A non-2xx answer. Carries the status and the service's error envelope (`type`, `detail`, `errors`). */
export class HttpError extends ApiError {
  override readonly name: string = 'HttpError';
  readonly status: number;
  readonly type: string | undefined;
  readonly detail: string | undefined;
  readonly errors: ValidationErrorItem[] | undefined;
  /** The start of a body that was not an error envelope (e.g. a proxy's HTML page), tags stripped. */
  readonly bodySnippet: string | undefined;
  constructor(
    target: RequestTarget,
    fields: HttpErrorFields,
    attempts: number,
    message?: string | OptionWording,
  ) {
    super(message ?? ((name) => HttpError.defaultMessage(target, fields, attempts, name)), target, attempts);
    this.status = fields.status;
    this.type = fields.type;
    this.detail = fields.detail;
    this.errors = fields.errors;
    this.bodySnippet = fields.bodySnippet;
  }

  private static defaultMessage(
    target: RequestTarget,
    fields: HttpErrorFields,
    attempts: number,
    name: (option: string) => string,
  ): string {
    const status = `${fields.status}${fields.statusText ? ` ${fields.statusText}` : ''}`;
    const said = serviceSaid(fields);
    let message = `${describeRequest(target)} failed with ${status}${afterAttempts(attempts)}`;
    if (said) message += `: ${said}`;
    if (fields.status >= 300 && fields.status < 400) {
      message +=
        `. The service redirected${fields.location ? ` to ${clip(fields.location, 200)}` : ''}; ` +
        `redirects are not followed so the token is never sent elsewhere. Point ${name('baseUrl')} at the final address.`;
    } else if (
      fields.status === 429 ||
      fields.status === 502 ||
      fields.status === 503 ||
      fields.status === 504
    ) {
      message += '. The service is overloaded or unreachable behind its gateway; try again later.';
    } else if (fields.status >= 500) {
      message += '. The service failed; try again later or contact its operators.';
    }
    return message;
  }
}

/** 401: the token is missing or invalid. */
export class AuthenticationError extends HttpError {
  override readonly name: string = 'AuthenticationError';
  constructor(
    target: RequestTarget,
    fields: HttpErrorFields,
    attempts: number,
    /** Where the caller sets the token, when not the `token` option (a run names its config key). */
    tokenSource?: string,
  ) {
    const said = serviceSaid(fields);
    super(
      target,
      fields,
      attempts,
      (name) =>
        `${describeRequest(target)} was rejected with 401: the access token is missing or invalid` +
        `${said ? ` (service said: ${said})` : ''}. Set ${tokenSource ?? name('token')} to a valid token.`,
    );
  }
}

/** 403: the token is valid but may not do this. */
export class ForbiddenError extends HttpError {
  override readonly name: string = 'ForbiddenError';
  constructor(target: RequestTarget, fields: HttpErrorFields, attempts: number) {
    const said = serviceSaid(fields);
    super(
      target,
      fields,
      attempts,
      `${describeRequest(target)} was refused with 403: the token is valid but lacks the rights for this ` +
        `operation${said ? ` (service said: ${said})` : ''}. Use a token with the needed role.`,
    );
  }
}

/** 404: the organization, workspace, project, assessment or finding does not exist (or is hidden). */
export class NotFoundError extends HttpError {
  override readonly name: string = 'NotFoundError';
  constructor(target: RequestTarget, fields: HttpErrorFields, attempts: number) {
    const said = serviceSaid(fields);
    super(
      target,
      fields,
      attempts,
      `${describeRequest(target)} failed with 404 not found${said ? `: ${said}` : ''}. ` +
        'Check the organization, workspace and the project, assessment or finding id.',
    );
  }
}

/** 426: the service requires a newer client. `apiVersion` is the service's, when a getConfig told us. */
export class UpgradeRequiredError extends HttpError {
  override readonly name: string = 'UpgradeRequiredError';
  readonly apiVersion: string | undefined;
  constructor(
    target: RequestTarget,
    fields: HttpErrorFields,
    attempts: number,
    apiVersion: string | undefined,
  ) {
    const said = serviceSaid(fields);
    const version =
      apiVersion !== undefined
        ? `the service reports api_version ${clip(apiVersion, 60)}`
        : 'its api_version is unknown; GET /api/v1/config reports it';
    super(
      target,
      fields,
      attempts,
      `${describeRequest(target)} failed with 426: the service requires a newer client than airt-report ` +
        `${VERSION} (${version})${said ? `; service said: ${said}` : ''}. Upgrade airt-report.`,
    );
    this.apiVersion = apiVersion;
  }
}

/**
 * What a NetworkError's message ends with: the advice to check the address, its setting named by
 * `name`. Exported so a message that quotes such a failure and gives the same advice in its own words
 * (a run that fetched nothing) can leave the quoted one out.
 */
export function reachabilityAdvice(name: (option: string) => string): string {
  return `Check ${name('baseUrl')} and that the service is reachable, then try again.`;
}

/** The service could not be reached, or the connection broke before a complete answer arrived. */
export class NetworkError extends ApiError {
  override readonly name: string = 'NetworkError';
  /** System or undici error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, …) when known. */
  readonly code: string | undefined;
  constructor(
    target: RequestTarget,
    what: string,
    code: string | undefined,
    attempts: number,
    cause?: unknown,
  ) {
    super(
      (name) =>
        `${describeRequest(target)} failed${afterAttempts(attempts)}: ${what}${code ? ` (${code})` : ''}. ` +
        reachabilityAdvice(name),
      target,
      attempts,
      { cause },
    );
    this.code = code;
  }
}

/**
 * The base URL's port is one fetch refuses to connect to (the WHATWG "bad port" list: 6000, 6665-6669,
 * 9, …). Nothing was sent, and repeating cannot help: a usage error (exit 2), never retried.
 */
export class BlockedPortError extends ApiError {
  override readonly name: string = 'BlockedPortError';
  readonly port: number;
  constructor(target: RequestTarget, port: number, attempts: number, cause?: unknown) {
    super(
      (name) =>
        `${describeRequest(target)} was not sent: port ${port} is blocked by fetch (unsafe port); use another ` +
        `port for the service (${name('baseUrl')}).`,
      target,
      attempts,
      { cause, exitCode: EXIT.usage },
    );
    this.port = port;
  }
}

/** No complete answer within the per-attempt timeout. */
export class TimeoutError extends ApiError {
  override readonly name: string = 'TimeoutError';
  readonly timeoutMs: number;
  /** `detail` says what took too long when it was not the wait for the answer (a body's pause). */
  constructor(target: RequestTarget, timeoutMs: number, attempts: number, detail?: string) {
    super(
      `${describeRequest(target)} timed out ${detail === undefined ? `after ${timeoutMs} ms` : `(${detail})`}${afterAttempts(attempts)}. ` +
        'The service is slow or unreachable; try again later or raise the timeout.',
      target,
      attempts,
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A PATCH (which appends a review event on the service, so is not safe to repeat) whose effect cannot
 * be known: a gateway answered 502/504, it timed out, or the connection broke. It was not repeated.
 */
export class OutcomeUnknownError extends ApiError {
  override readonly name: string = 'OutcomeUnknownError';
  /** The status the gateway or service answered, when there was one. */
  readonly status: number | undefined;
  readonly reason: string;
  constructor(
    target: RequestTarget,
    reason: string,
    status: number | undefined,
    attempts: number,
    cause?: unknown,
  ) {
    super(
      `${describeRequest(target)}: outcome unknown — ${reason}. The change may or may not have been applied ` +
        'and was not repeated automatically; read the current state before trying again.',
      target,
      attempts,
      { cause },
    );
    this.status = status;
    this.reason = reason;
  }
}

/**
 * Thrown by a consumer of `ApiClient.send` that finds a 2xx body is not valid JSON (cut short, or an
 * HTML page a proxy put in its place). The client turns it into a MalformedBodyError naming the
 * request, and repeats a GET or PUT as it repeats a 502 (client.ts): such a body says nothing about
 * the data, only that the answer did not arrive whole.
 */
export class UnusableBodyError extends Error {
  override readonly name: string = 'UnusableBodyError';
  constructor(
    /** Why the body is not JSON (JSON.parse's message). */
    readonly reason: string,
    /** The body's size in bytes. */
    readonly bytes: number,
    /** The start of the body as text, when at hand, for the message. */
    readonly start?: string,
  ) {
    super(`the body is not valid JSON: ${reason}`);
  }
}

/** What a MalformedBodyError reports about the body. */
export interface MalformedBodyFields {
  status: number;
  contentType: string | undefined;
  bytes: number;
  /** Why the body is not JSON (JSON.parse's message, token removed). */
  reason: string;
  /** A readable excerpt of the body's start (token removed), when at hand. */
  snippet?: string | undefined;
}

/**
 * A 2xx answer whose body is not valid JSON, found while it was streamed to the caller of `send` (the
 * snapshot): a body cut short, or an HTML page put in its place. A GET or PUT was repeated like a
 * 502 before this was raised; for a PATCH the change was applied and only the answer is unusable.
 */
export class MalformedBodyError extends ApiError {
  override readonly name: string = 'MalformedBodyError';
  readonly status: number;
  readonly contentType: string | undefined;
  readonly reason: string;
  constructor(target: RequestTarget, fields: MalformedBodyFields, attempts: number) {
    const applied = target.method === 'PATCH' ? ', so the change was applied,' : '';
    const type = fields.contentType ? `content-type ${clip(fields.contentType, 100)}` : 'no content-type';
    const snippet = fields.snippet ? `: "${clip(fields.snippet, 200)}"` : '';
    super(
      `${describeRequest(target)} answered ${fields.status}${applied} but its body is not valid JSON` +
        `${afterAttempts(attempts)}: ${clip(fields.reason, 300)} (${type}, ${fields.bytes} bytes${snippet}). ` +
        'The answer was cut short or replaced on its way (e.g. by a proxy); try again later.',
      target,
      attempts,
    );
    this.status = fields.status;
    this.contentType = fields.contentType;
    this.reason = fields.reason;
  }
}

/**
 * The request succeeded (2xx) but the body is not JSON or does not match the API schema. For PATCH and
 * PUT this means the change WAS applied: only the answer could not be read as expected.
 */
export class ResponseSchemaError extends ApiError {
  override readonly name: string = 'ResponseSchemaError';
  readonly status: number;
  readonly issues: SchemaIssue[];
  /** The parsed body (token redacted), or the body text when it was not JSON. */
  readonly body: unknown;
  readonly unknownKeys: string[];
  constructor(
    target: RequestTarget,
    fields: { status: number; issues: SchemaIssue[]; body: unknown; unknownKeys?: string[] },
    attempts: number,
  ) {
    const applied =
      target.method === 'GET'
        ? `answered ${fields.status}`
        : `answered ${fields.status}, so the change was applied,`;
    super(
      `${describeRequest(target)} ${applied} but the response did not validate against the API schema: ` +
        `${clip(formatIssues(fields.issues), 1000)}. The service may be newer than airt-report ${VERSION}.`,
      target,
      attempts,
    );
    this.status = fields.status;
    this.issues = fields.issues;
    this.body = fields.body;
    this.unknownKeys = fields.unknownKeys ?? [];
  }
}

/** Builds the typed error for a non-2xx answer. */
export function httpErrorFor(
  target: RequestTarget,
  fields: HttpErrorFields,
  attempts: number,
  apiVersion: string | undefined,
  tokenSource?: string,
): HttpError {
  switch (fields.status) {
    case 401:
      return new AuthenticationError(target, fields, attempts, tokenSource);
    case 403:
      return new ForbiddenError(target, fields, attempts);
    case 404:
      return new NotFoundError(target, fields, attempts);
    case 426:
      return new UpgradeRequiredError(target, fields, attempts, apiVersion);
    default:
      return new HttpError(target, fields, attempts);
  }
}

/** Whether `e` is any error of the API client (ApiError or a subclass). */
export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
/** Whether `e` is a non-2xx answer (HttpError or a subclass). */
export const isHttpError = (e: unknown): e is HttpError => e instanceof HttpError;
/** Whether `e` is a 401: the token is missing or invalid. */
export const isAuthenticationError = (e: unknown): e is AuthenticationError =>
  e instanceof AuthenticationError;
/** Whether `e` is a 403: the token lacks the rights. */
export const isForbiddenError = (e: unknown): e is ForbiddenError => e instanceof ForbiddenError;
/** Whether `e` is a 404: the organization, workspace, project, assessment or finding does not exist. */
export const isNotFoundError = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
/** Whether `e` is a 426: the service needs a newer client. */
export const isUpgradeRequiredError = (e: unknown): e is UpgradeRequiredError =>
  e instanceof UpgradeRequiredError;
/** Whether `e` is a failure to reach the service (refused, reset, DNS, body cut off). */
export const isNetworkError = (e: unknown): e is NetworkError => e instanceof NetworkError;
/** Whether `e` is a request fetch refused to send because of its port. */
export const isBlockedPortError = (e: unknown): e is BlockedPortError => e instanceof BlockedPortError;
/** Whether `e` is a request that got no complete answer in time. */
export const isTimeoutError = (e: unknown): e is TimeoutError => e instanceof TimeoutError;
/** Whether `e` is a PATCH whose effect cannot be known. */
export const isOutcomeUnknownError = (e: unknown): e is OutcomeUnknownError =>
  e instanceof OutcomeUnknownError;
/** Whether `e` is a 2xx body streamed to a caller of `send` that is not valid JSON. */
export const isMalformedBodyError = (e: unknown): e is MalformedBodyError => e instanceof MalformedBodyError;
/** Whether `e` is a 2xx whose body did not match the API schema. */
export const isResponseSchemaError = (e: unknown): e is ResponseSchemaError =>
  e instanceof ResponseSchemaError;
