/**
 * Ground truth for tests, computed by the same generator that serves the responses (at the current
 * epoch, including triage edits).
 */
import type { ProjectSummary } from '../api/schemas.js';
import type { SimulatedService } from './service.js';
import { visibleTrialCount } from './trials.js';

/** The simulator's ground truth, for tests: the ids and figures it serves. */
export interface SimulatorTruth {
  projects(): { key: string; id: string; name: string }[];
  evaluationJobIds(): string[];
  assessmentIds(projectKey: string): string[];
  /** Full count before any limit. */
  trialCount(assessmentId: string): number;
  /** Attack run ids (every attack run is a finding). */
  findingIds(projectKey: string): string[];
  /** The summary as served (parsed JSON). Small workspaces only. */
  summary(projectKey: string): ProjectSummary;
  /** Trial spans across the whole workspace (cheap: no trial is generated). */
  totalTrialCount(): number;
  /** `updated_at` of an assessment as served. */
  assessmentUpdatedAt(assessmentId: string): string;
}

export function createTruth(service: SimulatedService): SimulatorTruth {
  const project = (key: string) => {
    const found = service.projects().find((p) => p.key === key);
    if (!found) throw new Error(`No simulated project with key ${JSON.stringify(key)}`);
    return found;
  };
  const assessment = (id: string) => {
    const found = service.findAssessment(id);
    if (!found) throw new Error(`No simulated assessment ${id}`);
    return found;
  };
  return {
    projects: () => service.projects().map((p) => ({ key: p.key, id: p.id, name: p.name })),
    evaluationJobIds: () => service.evaluations.all(service.epoch).map((j) => j.id),
    assessmentIds: (key) => service.assessments(project(key)).map((a) => a.id),
    trialCount: (id) => visibleTrialCount(assessment(id)),
    findingIds: (key) => service.assessments(project(key)).flatMap((a) => a.runs.map((r) => r.id)),
    summary: (key) => JSON.parse(service.summaryBody(project(key))) as ProjectSummary,
    totalTrialCount: () =>
      service
        .projects()
        .reduce((sum, p) => sum + service.assessments(p).reduce((s, a) => s + visibleTrialCount(a), 0), 0),
    assessmentUpdatedAt: (id) => new Date(assessment(id).updatedAt).toISOString(),
  };
}
