/**
 * `report --format oscal`: the OSCAL assessment-results document of one project and snapshot, read
 * from the warehouse (read-only) and written atomically to `out`.
 */
import { checkOutputFile, writeOutputFile } from '../output-file.js';
import { checkSchema } from '../warehouse/ddl.js';
import { openWarehouse } from '../warehouse/db.js';
import { assessmentResultsJson, buildAssessmentResults } from './assessment-results.js';
import { readOscalEvidence } from './read-evidence.js';

export interface OscalExportOptions {
  db: string;
  project: string;
  snapshot?: string | undefined;
  org?: string | undefined;
  workspace?: string | undefined;
  /** Only this compliance framework's categories and the findings they relate (default: all). */
  framework?: string | undefined;
  out: string;
  signal?: AbortSignal | undefined;
}

/** Writes the document; returns its path. */
export async function exportOscal(options: OscalExportOptions): Promise<string> {
  await checkOutputFile(options.out);
  const warehouse = await openWarehouse(options.db, { readOnly: true });
  let text: string;
  try {
    await checkSchema(warehouse.conn, options.db);
    const evidence = await readOscalEvidence(warehouse.conn, {
      project: options.project,
      snapshotId: options.snapshot,
      org: options.org,
      workspace: options.workspace,
      framework: options.framework,
    });
    text = assessmentResultsJson(buildAssessmentResults(evidence));
  } finally {
    warehouse.close();
  }
  await writeOutputFile(options.out, text, { signal: options.signal });
  return options.out;
}
