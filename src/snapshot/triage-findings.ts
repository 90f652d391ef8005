/**
 * Findings for the snapshot's `findings/` directory. The API has no GET for a finding; the only full
 * FindingDetail bodies are the ones the triage PATCH returned, which the triage journal (JSON Lines,
 * `airt-triage/1`, see CONTRACTS.md) keeps. This reads the journal as a stream and keeps, per finding
 * of the snapshot's org and workspace, the latest body returned.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CliError } from '../errors.js';
import { acceptanceOfLine, type AcceptanceRecord } from './risk-acceptances-file.js';

export interface TriagedFinding {
  findingId: string;
  /** When the triage call returned it (the journal line's `time`). */
  time: string;
  httpStatus: number;
  /** The FindingDetail as the service returned it. */
  finding: Record<string, unknown>;
}

export interface TriagedFindings {
  findings: TriagedFinding[];
  /** The newest dated risk acceptance per finding, sorted by finding id. */
  acceptances: AcceptanceRecord[];
  /** Lines that were not valid JSON or not airt-triage/1 records. */
  skippedLines: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Latest FindingDetail per finding of `org`/`workspace`, sorted by finding id. "Latest" is the
 * greatest `time`; for equal times the later line wins (the journal is append-only).
 */
export async function readTriagedFindings(
  file: string,
  org: string,
  workspace: string,
): Promise<TriagedFindings> {
  const latest = new Map<string, TriagedFinding>();
  const accepted = new Map<string, AcceptanceRecord>();
  let skippedLines = 0;
  const stream = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new CliError(
      `Cannot read the triage journal ${file}: ${(error as Error).message}. Check --journal.`,
    );
  }
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      skippedLines++;
      continue;
    }
    if (!isRecord(data) || data.journal !== 'airt-triage/1' || typeof data.finding_id !== 'string') {
      skippedLines++;
      continue;
    }
    if (data.org !== org || data.workspace !== workspace || !isRecord(data.finding)) continue;
    const time = typeof data.time === 'string' ? data.time : '';
    const acceptance = acceptanceOfLine(data);
    const previousAcceptance = accepted.get(data.finding_id);
    if (acceptance && !(previousAcceptance && previousAcceptance.accepted_at > time)) {
      accepted.set(data.finding_id, acceptance);
    }
    const previous = latest.get(data.finding_id);
    if (previous && previous.time > time) continue;
    latest.set(data.finding_id, {
      findingId: data.finding_id,
      time,
      httpStatus: typeof data.http_status === 'number' ? data.http_status : 200,
      finding: data.finding,
    });
  }
  const findings = [...latest.values()].sort((a, b) =>
    a.findingId < b.findingId ? -1 : a.findingId > b.findingId ? 1 : 0,
  );
  const acceptances = [...accepted.values()].sort((a, b) =>
    a.finding_id < b.finding_id ? -1 : a.finding_id > b.finding_id ? 1 : 0,
  );
  return { findings, acceptances, skippedLines };
}
