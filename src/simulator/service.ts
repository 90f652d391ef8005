/**
 * The simulated service's state and lookups: the current epoch, the world plan at that epoch, cached
 * per-run aggregates, triage edits and auto-refill settings. HTTP handling lives in routes.ts; this
 * module answers "what is there" questions and builds response bodies.
 */
import { assessmentFacts, runFacts, type AssessmentFacts, type RunFacts } from './facts.js';
import { EvaluationCatalog } from './evaluations.js';
import type { ResolvedOptions } from './options.js';
import type { AssessmentPlan, AttackRunPlan, ProjectPlan } from './plan-types.js';
import { RunStatsCache } from './run-stats.js';
import type { AutoRefillSettings } from './service-docs.js';
import { projectSummaryJson } from './summary.js';
import { TriageStore } from './triage-store.js';
import { WorldPlanner } from './world.js';

interface Located<T> {
  project: ProjectPlan;
  assessment: AssessmentPlan;
  item: T;
}

export class SimulatedService {
  readonly planner: WorldPlanner;
  readonly stats = new RunStatsCache();
  readonly triage = new TriageStore();
  readonly evaluations: EvaluationCatalog;
  readonly autoRefill = new Map<string, AutoRefillSettings>();
  private currentEpoch: number;
  private readonly projectList: ProjectPlan[];
  private index: {
    epoch: number;
    assessments: Map<string, Located<AssessmentPlan>>;
    runs: Map<string, Located<AttackRunPlan>>;
  } | null = null;
  private readonly summaryCache = new Map<string, { stamp: string; body: string }>();

  constructor(readonly options: ResolvedOptions) {
    this.currentEpoch = options.epoch;
    this.planner = new WorldPlanner(options);
    this.projectList = this.planner.projects();
    this.evaluations = new EvaluationCatalog(options, () => this.projectList);
  }

  get epoch(): number {
    return this.currentEpoch;
  }

  setEpoch(epoch: number): void {
    if (!Number.isInteger(epoch) || epoch < 0)
      throw new RangeError(`epoch must be an integer >= 0, got ${epoch}`);
    this.currentEpoch = epoch;
    this.planner.retainEpoch(epoch);
  }

  projects(): ProjectPlan[] {
    return this.projectList;
  }

  /** A project by slug or by id, as the summary path accepts either. */
  findProject(slugOrId: string): ProjectPlan | undefined {
    return this.projectList.find((p) => p.key === slugOrId || p.id === slugOrId.toLowerCase());
  }

  assessments(project: ProjectPlan): AssessmentPlan[] {
    return this.planner.assessments(project, this.currentEpoch);
  }

  facts(project: ProjectPlan): AssessmentFacts[] {
    return this.assessments(project).map((a) => assessmentFacts(a, this.stats, this.triage));
  }

  private lookup(): NonNullable<SimulatedService['index']> {
    if (this.index?.epoch === this.currentEpoch) return this.index;
    const assessments = new Map<string, Located<AssessmentPlan>>();
    const runs = new Map<string, Located<AttackRunPlan>>();
    for (const project of this.projectList) {
      for (const assessment of this.assessments(project)) {
        assessments.set(assessment.id, { project, assessment, item: assessment });
        for (const run of assessment.runs) runs.set(run.id, { project, assessment, item: run });
      }
    }
    this.index = { epoch: this.currentEpoch, assessments, runs };
    return this.index;
  }

  findAssessment(id: string): AssessmentPlan | undefined {
    return this.lookup().assessments.get(id.toLowerCase())?.item;
  }

  /** A finding (attack run) with the name of its assessment. */
  findRun(id: string): { run: RunFacts; assessmentName: string } | undefined {
    const located = this.lookup().runs.get(id.toLowerCase());
    if (!located) return undefined;
    return {
      run: runFacts(located.item, this.stats.get(located.item), this.triage),
      assessmentName: located.assessment.name,
    };
  }

  /** The summary body, cached until the epoch or any triage state changes. */
  summaryBody(project: ProjectPlan): string {
    const stamp = `${this.currentEpoch}/${this.triage.version}`;
    const cached = this.summaryCache.get(project.key);
    if (cached?.stamp === stamp) return cached.body;
    const withFuture = project.index === Math.min(1, this.projectList.length - 1);
    const body = JSON.stringify(
      projectSummaryJson(project, this.facts(project), this.options.seed, withFuture),
    );
    this.summaryCache.set(project.key, { stamp, body });
    return body;
  }
}
