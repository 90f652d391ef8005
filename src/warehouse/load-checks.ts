/**
 * What a snapshot load checks against its manifest and reports from it: record counts (a mismatch
 * fails the load, schema drift named as such) and the manifest's own warnings, failed requests,
 * schema issues and verification problems, as load warnings.
 */
import path from 'node:path';
import { formatIssues } from '../api/parse.js';
import { CliError } from '../errors.js';
import type { Manifest, ManifestFile } from '../snapshot/manifest.js';
import { isPlainObject, type LoadWarning } from './row-builder.js';

/** The body does not hold as many records as its manifest entry says. */
export class RecordCountError extends CliError {
  override readonly name = 'RecordCountError';
}

/** A body field the manifest counts has a JSON type the API does not define. */
export class SchemaDriftError extends CliError {
  override readonly name = 'SchemaDriftError';
}

function jsonTypeOf(value: unknown): string {
  if (typeof value === 'object') return value === null ? 'null' : 'an object';
  return typeof value === 'string'
    ? 'a string'
    : typeof value === 'number'
      ? 'a number'
      : `a ${typeof value}`;
}

/** One difference between a snapshot directory and its manifest, as a sentence naming the file. */
export interface VerifyProblem {
  file: string;
  message: string;
}

/**
 * Throws unless `loaded` is the count the manifest records for `file`. `records` (the body's array
 * of them): when that field is present with another JSON type, the mismatch is schema drift and the
 * message names the file and field, not just the counts.
 */
export function checkRecordCount(
  dir: string,
  file: ManifestFile,
  loaded: number,
  records?: { body: unknown; field: string },
): void {
  if (file.records === null || file.records === loaded) return;
  const value = records && isPlainObject(records.body) ? records.body[records.field] : undefined;
  if (value !== undefined && value !== null && !Array.isArray(value)) {
    throw new SchemaDriftError(
      `${path.join(dir, file.path)}: field "${records?.field}" is ${jsonTypeOf(value)}, not the array the API defines (schema drift), so none of the ${file.records} items the manifest records could be read. Nothing was loaded.`,
    );
  }
  throw new RecordCountError(
    `${path.join(dir, file.path)}: the manifest records ${file.records} items but ${loaded} were loaded. The snapshot is inconsistent; nothing was loaded.`,
  );
}

/** The manifest's warnings, failed requests and schema issues, and a forced load's problems. */
export function manifestWarnings(manifest: Manifest, problems: readonly VerifyProblem[]): LoadWarning[] {
  const out: LoadWarning[] = [];
  for (const p of problems)
    out.push({
      code: 'verify_failed',
      message: `${p.message} (loaded unverified, as forced)`,
      file: p.file,
      detail: p,
    });
  for (const w of manifest.warnings)
    out.push({ code: w.code, message: w.message, file: w.path ?? null, detail: w, source: 'manifest' });
  for (const f of manifest.failed_requests) {
    out.push({
      code: 'failed_request',
      message: `${f.method} ${f.path} failed: ${f.error}`,
      file: f.file,
      detail: f,
      source: 'manifest',
    });
  }
  for (const f of manifest.files) {
    if (f.issues_total > 0) {
      out.push({
        code: 'schema_issue',
        message: `${f.path}: ${f.issues_total} schema issue(s): ${formatIssues(f.issues, 3)}`,
        file: f.path,
        detail: { issues: f.issues, issues_total: f.issues_total },
        source: 'manifest',
      });
    }
  }
  return out;
}
