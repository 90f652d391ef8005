/**
 * Phase 5 of a snapshot (see take-snapshot.ts): the latest FindingDetail of each finding the triage
 * journal holds, and its risk acceptances, written into the snapshot and recorded like fetched files.
 * The service has no operation to read a finding, so the journal is where these bodies come from.
 */
import { createHash } from 'node:crypto';
import { findingFile } from './fetch-plan.js';
import type { ManifestWarning } from './manifest.js';
import { RISK_ACCEPTANCES_FILE } from './risk-acceptances-file.js';
import type { PhaseContext } from './snapshot-phases.js';
import { readTriagedFindings } from './triage-findings.js';
import { writeFileAtomic } from './write-atomic.js';

/** Writes and records the findings and acceptances of `journalFile` for the context's workspace. */
export async function findings(
  context: PhaseContext,
  journalFile: string,
  warnings: ManifestWarning[],
): Promise<void> {
  const { store, org, workspace } = context;
  const triaged = await readTriagedFindings(journalFile, org, workspace);
  if (triaged.skippedLines > 0) {
    warnings.push({
      code: 'journal_lines_skipped',
      message: `${triaged.skippedLines} line(s) of the triage journal were not airt-triage/1 records and were skipped.`,
    });
  }
  for (const finding of triaged.findings) {
    const relative = findingFile(finding.findingId);
    const file = store.resolve(relative);
    await store.ensureDir(file);
    const body = Buffer.from(JSON.stringify(finding.finding, null, 2) + '\n', 'utf8');
    await writeFileAtomic(file, body, { syncDir: false, syncFile: false });
    store.record({
      path: relative,
      kind: 'finding',
      sha256: createHash('sha256').update(body).digest('hex'),
      bytes: body.byteLength,
      request: null,
      status: finding.httpStatus,
      fetched_at: finding.time,
      finding_id: finding.findingId,
      stored: 'fetched',
    });
  }
  if (triaged.acceptances.length > 0) {
    const file = store.resolve(RISK_ACCEPTANCES_FILE);
    await store.ensureDir(file);
    const body = Buffer.from(JSON.stringify(triaged.acceptances, null, 2) + '\n', 'utf8');
    await writeFileAtomic(file, body, { syncDir: false });
    store.record({
      path: RISK_ACCEPTANCES_FILE,
      kind: 'risk_acceptances',
      sha256: createHash('sha256').update(body).digest('hex'),
      bytes: body.byteLength,
      request: null,
      status: 200,
      fetched_at: triaged.acceptances.reduce((max, a) => (a.accepted_at > max ? a.accepted_at : max), ''),
    });
  }
}
