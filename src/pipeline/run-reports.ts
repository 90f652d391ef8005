/**
 * The report step of a run: which reports to render (one per configured report × project in scope ×
 * format), where each goes, and rendering them from the warehouse. Each report gets its own
 * directory — `<base>/<kind>-<project>[-<framework>]/report.<ext>` — so the charts a Markdown report
 * writes beside itself never collide with another report's.
 */
import path from 'node:path';
import { safeSegment } from '../snapshot/safe-path.js';
import type { RunConfig } from './run-config.js';

export interface PlannedReport {
  kind: 'executive' | 'compliance' | 'portfolio';
  /** Project key; null for portfolio. */
  project: string | null;
  framework: string | null;
  format: 'md' | 'html' | 'pdf';
  redact: boolean;
  /** The report's own directory. */
  dir: string;
  /** The directory the report's files are named relative to in the bundle (`reports/<relative>`). */
  base: string;
}

/**
 * Expands the configured reports: a report without `projects` covers the projects in scope; a
 * project the snapshot does not hold is skipped (and named, so the run summary can warn).
 */
export function planReports(
  reports: RunConfig['reports'],
  projectsInScope: readonly string[],
  projectsInSnapshot: readonly string[],
  defaultBase: string,
): { planned: PlannedReport[]; skipped: string[] } {
  const planned: PlannedReport[] = [];
  const skipped: string[] = [];
  for (const report of reports) {
    const base = report.out_dir ?? defaultBase;
    const framework = report.framework ?? null;
    const projects: (string | null)[] =
      report.kind === 'portfolio'
        ? [null]
        : report.projects.length > 0
          ? [...report.projects]
          : [...projectsInScope];
    for (const project of projects) {
      if (project !== null && !projectsInSnapshot.includes(project)) {
        skipped.push(`${report.kind} report for project ${project}: not in this snapshot`);
        continue;
      }
      const name = [
        report.kind,
        project === null ? null : safeSegment(project),
        framework === null ? null : safeSegment(framework),
      ]
        .filter((part): part is string => part !== null)
        .join('-');
      for (const format of report.formats) {
        planned.push({
          kind: report.kind,
          project,
          framework,
          format,
          redact: report.redact,
          dir: path.join(base, name),
          base,
        });
      }
    }
  }
  return { planned, skipped };
}

/** Where the report file of a planned report goes (Markdown: a directory, so charts sit beside it). */
export function plannedReportOut(report: PlannedReport): string {
  return report.format === 'md'
    ? `${report.dir}${path.sep}`
    : path.join(report.dir, `report.${report.format}`);
}
