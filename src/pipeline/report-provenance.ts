/**
 * The provenance a JSON-shaped report file names: which snapshots (id and root hash) its figures
 * come from. The one definition `bundle` (through the check of its staged zip) and `verify
 * BUNDLE.zip` apply to a bundled `.json` or `.oscal` file:
 *
 *   JSON report (`report --format json`, format `airt-report/report-…`)
 *     `snapshots[]` (id, root_sha256), narrowed to those its `projects[].snapshot_id` name: a
 *     portfolio also lists the snapshots of its ASR trend, which are not where its figures come from
 *   OSCAL assessment-results (`report --format oscal`)
 *     the `snapshot-id` and `root-sha256` props (airt-report's namespace) of its metadata; a root
 *     hash written `unknown` is none, and `snapshot-verified: false` marks a forced load
 *   any other JSON (a chart's Vega-Lite spec, …)
 *     names nothing and is not required to
 *
 * A file that does not parse is malformed: which snapshot it comes from is unknown.
 */
import { AIRT_NS } from '../oscal/assessment-results.js';
import { REPORT_JSON_FORMAT } from '../report/json-report.js';

/** A snapshot a report names: its id and manifest root hash (null when the report has none). */
export interface NamedSnapshot {
  snapshot_id: string | null;
  root_sha256: string | null;
}

/** What a JSON-shaped report file says about where it comes from. */
export type ReportProvenance =
  | {
      kind: 'json-report' | 'oscal';
      /** The snapshots its figures come from; empty when it names none. */
      snapshots: NamedSnapshot[];
      /** An OSCAL document of a forced load (`snapshot-verified: false`); the JSON report's mark is read elsewhere. */
      unverified: boolean;
    }
  /** JSON that is neither report (chart specs): no provenance expected. */
  | { kind: 'other' }
  /** Not JSON at all; `reason` is one line. */
  | { kind: 'malformed'; reason: string };

/** The JSON report's format prefix (`airt-report/report-1` today), so a later version is still read. */
const JSON_REPORT_FORMAT_PREFIX = REPORT_JSON_FORMAT.replace(/\d+$/u, '');

/** Reads the provenance of a bundled `.json` or `.oscal` file's text. */
export function readReportProvenance(text: string): ReportProvenance {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'malformed', reason: oneLine((error as Error).message) };
  }
  if (!isRecord(value)) return { kind: 'other' };
  if (typeof value.format === 'string' && value.format.startsWith(JSON_REPORT_FORMAT_PREFIX)) {
    return { kind: 'json-report', snapshots: jsonReportSnapshots(value), unverified: false };
  }
  const oscal = value['assessment-results'];
  if (isRecord(oscal)) return oscalProvenance(oscal);
  return { kind: 'other' };
}

/** Whether the report names `rootSha256` among the snapshots its figures come from. */
export function namesRootHash(provenance: ReportProvenance, rootSha256: string): boolean {
  return (
    (provenance.kind === 'json-report' || provenance.kind === 'oscal') &&
    provenance.snapshots.some((snapshot) => snapshot.root_sha256 === rootSha256)
  );
}

function jsonReportSnapshots(report: Record<string, unknown>): NamedSnapshot[] {
  const listed = (Array.isArray(report.snapshots) ? report.snapshots : [])
    .filter(isRecord)
    .map((entry): NamedSnapshot => ({
      snapshot_id: stringOrNull(entry.snapshot_id),
      root_sha256: stringOrNull(entry.root_sha256),
    }));
  const used = new Set(
    (Array.isArray(report.projects) ? report.projects : [])
      .filter(isRecord)
      .map((project) => stringOrNull(project.snapshot_id))
      .filter((id): id is string => id !== null),
  );
  return used.size === 0 ? listed : listed.filter((snapshot) => used.has(snapshot.snapshot_id ?? ''));
}

function oscalProvenance(document: Record<string, unknown>): ReportProvenance {
  const metadata = isRecord(document.metadata) ? document.metadata : {};
  const props = (Array.isArray(metadata.props) ? metadata.props : []).filter(
    (prop): prop is Record<string, unknown> => isRecord(prop) && prop.ns === AIRT_NS,
  );
  const valueOf = (name: string): string | null =>
    stringOrNull(props.find((prop) => prop.name === name)?.value);
  const snapshotId = valueOf('snapshot-id');
  const root = valueOf('root-sha256');
  return {
    kind: 'oscal',
    snapshots:
      snapshotId === null && root === null
        ? []
        : [{ snapshot_id: snapshotId, root_sha256: root === 'unknown' ? null : root }],
    unverified: valueOf('snapshot-verified') === 'false',
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * A parser's message on one short line: V8 quotes the text around the error, which may hold
 * newlines and anything else the file holds.
 */
function oneLine(message: string, max = 120): string {
  const line = message.replace(/\s+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
