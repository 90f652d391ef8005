/**
 * The simulator's internal plan of the world: projects, assessments and attack runs with just enough
 * parameters to generate everything else (trials, aggregates, JSON) deterministically and lazily.
 * Times are epoch milliseconds of the logical clock.
 */
import type { RiskDomain } from './taxonomy.js';

export type RunStatus = 'pending' | 'running' | 'completed' | 'failed';
export type AttackDomain = 'generative' | 'adversarial_ml';

/** Special cases planted on purpose in some assessments. */
export type AssessmentRole =
  | 'pending'
  | 'running'
  | 'failed'
  | 'legacy_compliance'
  | 'garbage_slice'
  | 'adversarial_ml'
  | 'deep'
  | 'regression'
  | 'showcase'
  | 'future_fields';

export interface ProjectPlan {
  index: number;
  key: string;
  id: string;
  name: string;
  createdAt: number;
  targetModel: string;
  /** Scales attack success in this project (some targets are harder than others). */
  weakness: number;
}

export interface AttackRunPlan {
  key: string;
  id: string;
  index: number;
  assessmentId: string;
  assessmentName: string;
  attackName: string;
  attackDomain: AttackDomain;
  goal: string;
  goalCategory: string;
  subCategory: string;
  riskDomain: RiskDomain;
  transforms: string[];
  status: RunStatus;
  createdAt: number;
  completedAt: number | null;
  /** Trials of the finished run; `visibleTrials` of them exist now (fewer while running). */
  plannedTrials: number;
  visibleTrials: number;
  /** Best finished-trial score the run reaches (planted at `bestIndex`). */
  targetBest: number;
  bestIndex: number;
  failRate: number;
  pruneRate: number;
  /** Every trial failed (target errors); the finding type is then `error`. */
  allFailed: boolean;
  /** Seeds the trials; changes only when the run is re-scored (regression epoch). */
  trialSeed: number;
  traceId: string;
  attackerModel: string;
  judgeModel: string;
  targetModel: string;
  inputModality: 'text' | 'image' | 'tabular';
  /** Some trials carry image parts. */
  multimodal: boolean;
  /** Trials carry tool calls of an agentic target. */
  agentic: boolean;
  /** Every trial plants hostile text; the best trial's response is the 20 KB string. */
  showcase: boolean;
  futureFields: boolean;
  distanceNorm: string | null;
}

export interface AssessmentPlan {
  key: string;
  projectIndex: number;
  id: string;
  name: string;
  description: string | null;
  roles: ReadonlySet<AssessmentRole>;
  status: RunStatus;
  domain: AttackDomain;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  updatedAt: number;
  attackerModel: string;
  judgeModel: string;
  targetModel: string;
  /** The analytics slice stored in an older, erroneous format (announced in analytics_warnings). */
  garbageField: string | null;
  runs: AttackRunPlan[];
}
