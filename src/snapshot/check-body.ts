/**
 * What the snapshot learns from stored bodies, in two separate steps:
 *
 * - **facts** (`read*Facts`): the few values the fetch plan needs next — page totals and project ids,
 *   a summary's assessments, the service versions. A quick JSON.parse, read defensively from whatever
 *   arrived, so the next requests start at once. A fetched body they read was found valid JSON while
 *   it was received (`answerProblem`): one that is not never gets this far, so an empty fact means an
 *   empty list, not a body cut short.
 * - **validation** (`checkBody`): tolerant validation against the API schemas. Nothing is rejected
 *   but a body that is not JSON at all (INVALID_JSON: the store turns it into a failed request);
 *   problems and unknown keys become manifest entries. It runs in the background, one file at a time,
 *   and yields to the event loop between array elements so a large body never stalls the requests in
 *   flight; a body that fits is recognized by a quick check derived from the schemas and only a body
 *   that does not is handed to zod for its issues (inspectTolerant). Trial lists on disk are streamed
 *   element by element (json-array-stream.ts): memory stays flat however long a list is.
 */
import { AcceptanceFileSchema } from './risk-acceptances-file.js';
import { readFile } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { z } from 'zod';
import { inspectTolerant, type SchemaIssue } from '../api/parse.js';
import {
  AssessmentDetailSchema,
  ConfigResponseSchema,
  EvaluationJobListSchema,
  FindingDetailSchema,
  ProjectSummarySchema,
  TrialListSchema,
  TrialResultSchema,
} from '../api/schemas.js';
import { forEachArrayElement, JsonSyntaxError, NotAnArrayError } from './json-array-stream.js';
import type { FileKind } from './manifest.js';

/** Issues kept per file; `issues_total` still counts them all. */
export const MAX_ISSUES_PER_FILE = 50;

/** What validation found in one body. */
export interface BodyCheck {
  records: number | null;
  issues: SchemaIssue[];
  issuesTotal: number;
  unknownKeys: string[];
}

export interface ConfigFacts {
  apiVersion: string | null;
  appVersion: string | null;
}

export interface PageFacts {
  total: number | null;
  jobIds: string[];
  projectIds: string[];
}

/** The identity and change markers of one assessment, as `--since` compares them. */
export interface AssessmentRef {
  id: string;
  updatedAt: string | null;
  status: string | null;
}

export interface SummaryFacts {
  projectId: string | null;
  assessments: AssessmentRef[];
}

class IssueCollector {
  readonly issues: SchemaIssue[] = [];
  total = 0;
  readonly unknownKeys = new Set<string>();
  add(issues: readonly SchemaIssue[], pathPrefix?: string): void {
    for (const issue of issues) {
      if (this.issues.length < MAX_ISSUES_PER_FILE) {
        this.issues.push(pathPrefix ? { ...issue, path: issue.path.replace(/^\$/, pathPrefix) } : issue);
      }
      this.total++;
    }
  }
  addUnknown(keys: readonly string[], pathPrefix?: string): void {
    for (const key of keys) this.unknownKeys.add(pathPrefix ? key.replace(/^\$/, pathPrefix) : key);
  }
  check(schema: z.ZodType, data: unknown, issuePrefix?: string, keyPrefix?: string): void {
    const parsed = inspectTolerant(schema, data);
    this.add(parsed.issues, issuePrefix);
    this.addUnknown(parsed.unknownKeys, keyPrefix);
  }
  result(records: number | null): BodyCheck {
    return {
      records,
      issues: this.issues,
      issuesTotal: this.total,
      unknownKeys: [...this.unknownKeys].sort(),
    };
  }
}

/** The issue code of a body that is not valid JSON: no answer at all, so its request failed. */
export const INVALID_JSON = 'invalid_json';

function invalidJson(message: string): SchemaIssue {
  return { path: '$', message: `not valid JSON: ${message}`, code: INVALID_JSON };
}

/** True when validation found the body is not valid JSON (see INVALID_JSON). */
export function isInvalidJson(issues: readonly SchemaIssue[]): boolean {
  return issues.some((issue) => issue.code === INVALID_JSON);
}

type ParsedBody = { ok: true; data: unknown } | { ok: false; reason: string; issue: SchemaIssue };

/**
 * Bodies in memory parsed so far, by their bytes: a summary's facts and its validation read the same
 * body on the same thread, and parsing 1.4 MB twice costs more than keeping the parse until the
 * bytes are dropped. Nothing here changes a parsed value (validation copies what it trims).
 */
const parsedBodies = new WeakMap<Uint8Array, ParsedBody>();

async function readJson(file: string, content?: Uint8Array): Promise<ParsedBody> {
  return content ? parseHeld(content) : parseJson(await readFile(file, 'utf8'));
}

function parseHeld(content: Uint8Array): ParsedBody {
  let parsed = parsedBodies.get(content);
  if (!parsed) {
    parsed = parseJson(Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8'));
    parsedBodies.set(content, parsed);
  }
  return parsed;
}

function parseJson(text: string): ParsedBody {
  try {
    return { ok: true, data: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = (error as Error).message;
    return { ok: false, reason, issue: invalidJson(reason) };
  }
}

/**
 * Why a body held in memory is not valid JSON (JSON.parse's message), or undefined when it is. The
 * parse is kept with the bytes (parsedBodies), so the facts and the validation that read the same
 * body next do not parse it again.
 */
export function jsonProblemOf(content: Uint8Array): string | undefined {
  const parsed = parseHeld(content);
  return parsed.ok ? undefined : parsed.reason;
}

/** Like jsonProblemOf, for a body in a file (read whole: only for bodies whose facts are read whole too). */
export async function jsonProblemIn(file: string): Promise<string | undefined> {
  const parsed = parseJson(await readFile(file, 'utf8'));
  return parsed.ok ? undefined : parsed.reason;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

async function readObject(file: string, content?: Uint8Array): Promise<Record<string, unknown>> {
  const body = await readJson(file, content);
  return body.ok && isRecord(body.data) ? body.data : {};
}

/**
 * Why a fetched body is no answer at all, decided while its request is still open (fetch-to-file's
 * `bodyProblem`: the client then repeats the request), or undefined. Every body the fetch plan reads
 * facts from (pages, summaries, config) must be valid JSON, held in memory or spilled (a summary of
 * many MB: its facts are read whole anyway). A trial list feeds no fact: it is left to its validation,
 * which streams it element by element after the request (in slices on the main thread, or from its
 * file on a worker), so neither a whole-body parse nor the memory of one sits in the request's path
 * (the snapshot's throughput against a bare client, bench/snapshot.ts); a syntax error found there
 * fails the request afterwards (see FileStore), and the snapshot ends partial and resumable.
 */
export async function answerProblem(
  kind: FileKind,
  body: { content: Uint8Array } | { spilledTo: string },
): Promise<string | undefined> {
  if (kind === 'trials') return undefined;
  return 'content' in body ? jsonProblemOf(body.content) : jsonProblemIn(body.spilledTo);
}

// ---------------------------------------------------------------------------------------------
// Facts (from `content` when the body is still in memory, else from the file)
// ---------------------------------------------------------------------------------------------

/** Versions from GET /api/v1/config. */
export async function readConfigFacts(file: string, content?: Uint8Array): Promise<ConfigFacts> {
  const data = await readObject(file, content);
  return { apiVersion: stringOrNull(data.api_version), appVersion: stringOrNull(data.app_version) };
}

/** Total, job ids and project ids of one evaluation page. */
export async function readPageFacts(file: string, content?: Uint8Array): Promise<PageFacts> {
  const data = await readObject(file, content);
  const items = Array.isArray(data.items) ? data.items : [];
  const jobIds: string[] = [];
  const projectIds: string[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (typeof item.id === 'string') jobIds.push(item.id);
    if (typeof item.project_id === 'string' && item.project_id !== '') projectIds.push(item.project_id);
  }
  const total = typeof data.total === 'number' && Number.isInteger(data.total) ? data.total : null;
  return { total, jobIds, projectIds };
}

/** Project id and assessments (id, updated_at, status) of a project summary. */
export async function readSummaryFacts(file: string, content?: Uint8Array): Promise<SummaryFacts> {
  const data = await readObject(file, content);
  const list = Array.isArray(data.assessments) ? data.assessments : [];
  const assessments: AssessmentRef[] = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item.id !== 'string' || item.id === '') continue;
    assessments.push({
      id: item.id,
      updatedAt: stringOrNull(item.updated_at),
      status: stringOrNull(item.status),
    });
  }
  return { projectId: stringOrNull(data.project_id), assessments };
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/** Trial lists up to this size are read whole: cheaper than streaming, and memory stays small. */
const STREAM_TRIALS_ABOVE_BYTES = 1024 * 1024;

/**
 * Validates a stored body of `kind` (`bytes`: its size, when known). `content`, when given, is the
 * file's bytes already in memory (a small body just fetched), so the file is not read again. Never
 * throws for bad content; only for I/O errors.
 */
export async function checkBody(
  kind: FileKind,
  file: string,
  bytes?: number,
  content?: Uint8Array,
): Promise<BodyCheck> {
  if (!content && kind === 'trials' && (bytes === undefined || bytes > STREAM_TRIALS_ABOVE_BYTES))
    return streamTrials(file);
  const collector = new IssueCollector();
  const body = await readJson(file, content);
  if (!body.ok) {
    collector.add([body.issue]);
    return collector.result(null);
  }
  const data = body.data;
  switch (kind) {
    case 'trials':
      return checkTrialArray(data, collector, true);
    case 'config':
      collector.check(ConfigResponseSchema, data);
      return collector.result(1);
    case 'finding':
      collector.check(FindingDetailSchema, data);
      return collector.result(1);
    case 'evaluations_page': {
      collector.check(EvaluationJobListSchema, data);
      const items = isRecord(data) && Array.isArray(data.items) ? data.items.length : null;
      return collector.result(items);
    }
    case 'project_summary':
      return checkSummary(data, collector);
    case 'risk_acceptances':
      collector.check(AcceptanceFileSchema, data);
      return collector.result(Array.isArray(data) ? data.length : null);
  }
}

/**
 * A summary is validated one assessment at a time (the bulk of a large summary), yielding between
 * them, then the rest of the object with the assessments left out.
 */
async function checkSummary(data: unknown, collector: IssueCollector): Promise<BodyCheck> {
  if (!isRecord(data) || !Array.isArray(data.assessments)) {
    collector.check(ProjectSummarySchema, data);
    return collector.result(null);
  }
  const assessments: unknown[] = data.assessments;
  for (let i = 0; i < assessments.length; i++) {
    collector.check(AssessmentDetailSchema, assessments[i], `$.assessments[${i}]`, '$.assessments[*]');
    await yieldToEventLoop();
  }
  collector.check(ProjectSummarySchema, { ...data, assessments: [] });
  return collector.result(assessments.length);
}

/** Trials checked between two yields to the event loop (a few hundred microseconds of work). */
const TRIALS_PER_SLICE = 64;

/**
 * A trial list already in memory. Like the streamed path: issue paths get the element index
 * (`$[12].score`), unknown keys the array wildcard (`$[*].new_field`), as TrialListSchema reports them.
 */
async function checkTrialArray(
  data: unknown,
  collector: IssueCollector,
  yieldBetween = false,
): Promise<BodyCheck> {
  if (!Array.isArray(data)) {
    collector.check(TrialListSchema, data);
    return collector.result(null);
  }
  for (let index = 0; index < data.length; index++) {
    collector.check(TrialResultSchema, data[index], `$[${index}]`, '$[*]');
    // A list checked on the thread that drives the requests gives way now and then (see checkSummary).
    if (yieldBetween && index % TRIALS_PER_SLICE === TRIALS_PER_SLICE - 1) await yieldToEventLoop();
  }
  return collector.result(data.length);
}

/** GET …/traces/trials of any size, one element at a time from a stream. */
async function streamTrials(file: string): Promise<BodyCheck> {
  const collector = new IssueCollector();
  try {
    const count = await forEachArrayElement(file, (element, index) => {
      collector.check(TrialResultSchema, element, `$[${index}]`, '$[*]');
    });
    return collector.result(count);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      collector.add([invalidJson(`${error.message} (byte ${error.offset})`)]);
      return collector.result(null);
    }
    if (!(error instanceof NotAnArrayError)) throw error;
  }
  // Not an array: other JSON (schema drift) or not JSON at all; either way small enough to read whole.
  const body = await readJson(file);
  if (!body.ok) {
    collector.add([body.issue]);
    return collector.result(null);
  }
  return checkTrialArray(body.data, collector);
}
