/**
 * The `failed_requests` entries of a manifest: which request failed, what its file would have held,
 * and why — from a request's error, or from a stored body its validation found is not JSON at all.
 */
import { HttpError, MalformedBodyError, type ApiError } from '../api/errors.js';
import { describedOptionName } from '../errors.js';
import type { BodyCheck } from './check-body.js';
import type { FetchTarget } from './fetch-plan.js';
import type { JournalFile } from './journal.js';
import type { FailedRequest } from './manifest.js';

/** The request behind a failed request entry, and what its file would have held. */
export interface FailedItem {
  method: FailedRequest['method'];
  path: string;
  kind: FailedRequest['kind'];
  file: string;
  project?: string | undefined;
  assessment_id?: string | undefined;
}

/** The failed item of a planned request. */
export function failedTarget(target: FetchTarget): FailedItem {
  return {
    method: target.request.method,
    path: target.requestPath,
    kind: target.kind,
    file: target.file,
    project: target.identity.project,
    assessment_id: target.identity.assessment_id,
  };
}

/**
 * A stored file its validation found is not valid JSON (`check`), as a failed request: the request
 * that stored it and a MalformedBodyError saying why. Only for files that came from a request.
 */
export function unusableFile(
  stored: JournalFile & { request: NonNullable<JournalFile['request']> },
  check: BodyCheck,
): { item: FailedItem; error: MalformedBodyError } {
  const { request } = stored;
  const reason = check.issues[0]?.message.replace(/^not valid JSON: /, '') ?? 'not valid JSON';
  // Found in the stored file after the request succeeded (a list too long to check while it arrived):
  // the attempt that delivered it is the one counted.
  const error = new MalformedBodyError(
    request,
    { status: stored.status, contentType: undefined, bytes: stored.bytes, reason },
    1,
  );
  const item: FailedItem = {
    method: request.method,
    path: request.path,
    kind: stored.kind,
    file: stored.path,
    project: stored.project,
    assessment_id: stored.assessment_id,
  };
  return { item, error };
}

/** The manifest entry of `item` failing with `error`. */
export function failedRequest(item: FailedItem, error: ApiError): FailedRequest {
  const failure: FailedRequest = {
    method: item.method,
    path: item.path,
    kind: item.kind,
    file: item.file,
    status: error instanceof HttpError || error instanceof MalformedBodyError ? error.status : null,
    // Persisted: worded for whoever reads the manifest later, not as the library spells its options.
    error: error.describeWith(describedOptionName),
    attempts: error.attempts,
  };
  if (item.project !== undefined) failure.project = item.project;
  if (item.assessment_id !== undefined) failure.assessment_id = item.assessment_id;
  return failure;
}
