/**
 * The `report` command's library call: open the warehouse read-only, build the model, render and
 * write it. Nothing here touches the network.
 */
import { checkSchema } from '../warehouse/ddl.js';
import { openWarehouse } from '../warehouse/db.js';
import { buildModel, type ModelRequest } from './build-model.js';
import { writeReport, type WriteReportOptions, type WrittenReport } from './write-report.js';

/** Everything generateReport needs: the database, which report, and how to write it. */
export interface GenerateReportOptions extends ModelRequest, WriteReportOptions {
  /** DuckDB warehouse file, opened read-only. */
  db: string;
}

/** Renders one report from the warehouse to `out`. */
export async function generateReport(options: GenerateReportOptions): Promise<WrittenReport> {
  const warehouse = await openWarehouse(options.db, { readOnly: true });
  let model;
  try {
    await checkSchema(warehouse.conn, options.db);
    model = await buildModel(warehouse.conn, options);
  } finally {
    warehouse.close();
  }
  return writeReport(model, options);
}
