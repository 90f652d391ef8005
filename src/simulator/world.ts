/**
 * Plans the workspace at a given epoch: which projects exist, their assessments (with the planted
 * special cases) and each assessment's attack runs. Plans are small and derived from hash(seed, path),
 * so they are cheap to rebuild and independent of request order. Trials are not planned here; they
 * come from `run-stats.ts` / `trials.ts` given a run plan.
 */
import { BASE_TIME_MS, DAY, HOUR, MINUTE, SECOND, epochNow, iso } from './clock.js';
import { HOSTILE_NAMES } from './hostile.js';
import { uuidFor, hexFor } from './ids.js';
import type { ResolvedOptions } from './options.js';
import type { AssessmentPlan, AssessmentRole, AttackRunPlan, ProjectPlan, RunStatus } from './plan-types.js';
import { hashString, rngFor, round } from './prng.js';
import { assignRoles, drawBestScore } from './roles.js';
import {
  ADVERSARIAL_ML_ATTACKS,
  ADVERSARIAL_ML_GOALS,
  ATTACKER_MODELS,
  CLASSIFIER_TARGETS,
  DISTANCE_NORMS,
  GENERATIVE_ATTACKS,
  GOAL_CATEGORIES,
  JUDGE_MODELS,
  TARGET_MODELS,
  TRANSFORMS,
  goalCategory,
} from './taxonomy.js';

const PROJECT_KEYS = [
  'customer-support-bot',
  'payments-agent',
  'internal-rag',
  'code-assistant',
  'vision-moderation',
  'fraud-scoring',
];
const PROJECT_NAMES = [
  'Customer Support Bot',
  HOSTILE_NAMES[0] ?? 'Payments agent',
  'Internal RAG search',
  'Code Assistant',
  'Vision Moderation',
  'Fraud Scoring',
];
/** The project slug of the `hostileSlug` option, for path-safety tests. */
export const HOSTILE_SLUG = '../../etc';

/** The days before the base time over which epoch-0 assessments are spread. */
const HISTORY_DAYS = 150;

export class WorldPlanner {
  private readonly cache = new Map<string, AssessmentPlan[]>();

  constructor(private readonly options: ResolvedOptions) {}

  projects(): ProjectPlan[] {
    const list: ProjectPlan[] = [];
    for (let p = 0; p < this.options.projects; p++)
      list.push(this.project(p, PROJECT_KEYS[p] ?? `project-${p + 1}`));
    if (this.options.hostileSlug) list.push(this.project(this.options.projects, HOSTILE_SLUG));
    return list;
  }

  private project(index: number, key: string): ProjectPlan {
    const { seed } = this.options;
    const rng = rngFor(seed, 'project', key);
    const name =
      key === HOSTILE_SLUG ? 'Hostile <slug> ../../etc' : (PROJECT_NAMES[index] ?? `Project ${index + 1}`);
    return {
      index,
      key,
      id: uuidFor(seed, `project/${key}`),
      name,
      createdAt: BASE_TIME_MS - 200 * DAY + index * DAY + rng.int(0, 23) * HOUR,
      targetModel: TARGET_MODELS[index % TARGET_MODELS.length] ?? 'acme/support-bot-v3',
      weakness: round(0.55 + rng.next() * 0.6, 2),
    };
  }

  /** Assessments of a project at `epoch`, oldest first. Cached per (project, epoch). */
  assessments(project: ProjectPlan, epoch: number): AssessmentPlan[] {
    const cacheKey = `${project.key}@${epoch}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const count = this.options.scale.assessmentsPerProject;
    const roles = assignRoles(project.index, count);
    const list: AssessmentPlan[] = [];
    for (let i = 0; i < count; i++)
      list.push(this.assessment(project, `a${i}`, i, count, roles.get(i) ?? new Set(), epoch));
    for (let k = 1; k <= epoch; k++)
      list.push(this.assessment(project, `e${k}`, count + k - 1, count, new Set(), epoch, k));
    this.cache.set(cacheKey, list);
    return list;
  }

  /** Forgets plans of other epochs (called when the epoch changes). */
  retainEpoch(epoch: number): void {
    for (const key of this.cache.keys()) if (!key.endsWith(`@${epoch}`)) this.cache.delete(key);
  }

  private assessment(
    project: ProjectPlan,
    slot: string,
    index: number,
    count: number,
    roles: ReadonlySet<AssessmentRole>,
    epoch: number,
    addedAtEpoch = 0,
  ): AssessmentPlan {
    const { seed } = this.options;
    const key = `${project.key}/${slot}`;
    const rng = rngFor(seed, 'assessment', key);
    const id = uuidFor(seed, `assessment/${key}`);
    const adversarial = roles.has('adversarial_ml');
    const attackerModel = rng.pick(ATTACKER_MODELS);
    const judgeModel = rng.pick(JUDGE_MODELS);
    const targetModel = adversarial
      ? rng.pick(CLASSIFIER_TARGETS)
      : rng.chance(0.8)
        ? project.targetModel
        : rng.pick(TARGET_MODELS);

    let createdAt: number;
    if (addedAtEpoch > 0)
      createdAt = BASE_TIME_MS + (addedAtEpoch - 1) * DAY + 4 * HOUR + rng.int(0, 59) * MINUTE;
    else if (roles.has('pending')) createdAt = BASE_TIME_MS - HOUR - rng.int(0, 20) * MINUTE;
    else if (roles.has('running')) createdAt = BASE_TIME_MS - 6 * HOUR - rng.int(0, 30) * MINUTE;
    else
      createdAt =
        BASE_TIME_MS -
        HISTORY_DAYS * DAY +
        Math.floor(((index + 0.5) * HISTORY_DAYS * DAY) / count) +
        rng.int(0, 8) * HOUR;

    const runningAtEpoch0 = roles.has('running');
    let status: RunStatus = 'completed';
    if (roles.has('pending')) status = 'pending';
    else if (roles.has('failed')) status = 'failed';
    else if (runningAtEpoch0 && epoch === 0) status = 'running';
    const startedAt = status === 'pending' ? null : createdAt + rng.int(2, 8) * MINUTE;

    const dateLabel = iso(createdAt).slice(0, 10);
    const hostileName = !adversarial && (project.index + index) % 7 === 3;
    const name = hostileName
      ? `${HOSTILE_NAMES[(project.index + index) % HOSTILE_NAMES.length] ?? ''} ${dateLabel}`
      : adversarial
        ? `Adversarial robustness ${dateLabel}`
        : `${rng.pick(['Nightly red-team', 'Weekly jailbreak sweep', 'Pre-release assessment', 'Compliance baseline'])} ${dateLabel}`;
    const description =
      index % 4 === 1
        ? null
        : `Automated red-team assessment of ${targetModel} (${adversarial ? 'adversarial ML' : 'generative'} attacks).`;

    const plan: AssessmentPlan = {
      key,
      projectIndex: project.index,
      id,
      name,
      description,
      roles,
      status,
      domain: adversarial ? 'adversarial_ml' : 'generative',
      createdAt,
      startedAt,
      completedAt: null,
      updatedAt: createdAt,
      attackerModel,
      judgeModel,
      targetModel,
      garbageField: roles.has('garbage_slice')
        ? project.index === 0
          ? 'asr_by_category'
          : 'asr_by_transform'
        : null,
      runs: [],
    };
    plan.runs = this.runs(plan, project, epoch, runningAtEpoch0);
    this.finishTimes(plan, epoch, runningAtEpoch0);
    return plan;
  }

  private finishTimes(plan: AssessmentPlan, epoch: number, runningAtEpoch0: boolean): void {
    if (plan.status === 'pending') return;
    if (plan.status === 'running') {
      plan.updatedAt = epochNow(0) - 10 * MINUTE;
      return;
    }
    const ends = plan.runs.map((r) => r.completedAt ?? 0);
    plan.completedAt = Math.max(plan.startedAt ?? plan.createdAt, ...ends) + 20 * SECOND;
    plan.updatedAt = plan.completedAt + 45 * SECOND;
    // A regression at epoch >= 1: the assessment was re-scored after the base time.
    if (plan.roles.has('regression') && epoch >= 1) plan.updatedAt = BASE_TIME_MS + 3 * HOUR;
    if (runningAtEpoch0 && epoch >= 1) plan.updatedAt = plan.completedAt + 45 * SECOND;
  }

  private runs(
    plan: AssessmentPlan,
    project: ProjectPlan,
    epoch: number,
    runningAtEpoch0: boolean,
  ): AttackRunPlan[] {
    const { seed, scale } = this.options;
    const rng = rngFor(seed, 'runs', plan.key);
    const count = scale.attacksPerAssessment;
    const adversarial = plan.domain === 'adversarial_ml';
    const attackPool = rng.sample(GENERATIVE_ATTACKS, Math.min(5, count));
    const categoryPool = rng.sample(
      GOAL_CATEGORIES.map((c) => c.name),
      6,
    );
    const transformPool = rng.sample(TRANSFORMS, 5);
    const trialFactor = plan.roles.has('deep') ? 4 : 1;
    const planned: number[] = [];
    for (let k = 0; k < count; k++) {
      planned.push(Math.max(1, Math.round(scale.trialsPerAttack * trialFactor * (0.75 + 0.5 * rng.next()))));
    }
    const sum = planned.reduce((a, b) => a + b, 0);
    if (sum > scale.maxTrialsPerAssessment) {
      for (let k = 0; k < count; k++)
        planned[k] = Math.max(1, Math.floor(((planned[k] ?? 1) * scale.maxTrialsPerAssessment) / sum));
    }

    const runs: AttackRunPlan[] = [];
    const runStart = plan.startedAt ?? plan.createdAt;
    const halfway = Math.floor(count / 2);
    for (let k = 0; k < count; k++) {
      const runKey = `${plan.key}/r${k}`;
      const r = rngFor(seed, 'run', runKey);
      const n = planned[k] ?? 1;
      let attackName: string;
      let goal: string;
      let category: string;
      let subCategory: string;
      let modality: 'text' | 'image' | 'tabular' = 'text';
      let transforms: string[] = [];
      if (adversarial) {
        attackName = ADVERSARIAL_ML_ATTACKS[k % ADVERSARIAL_ML_ATTACKS.length] ?? 'hop_skip_jump_attack';
        const info = ADVERSARIAL_ML_GOALS[attackName];
        goal = info?.goal ?? 'Evade the classifier';
        category = info?.category ?? 'quantization_safety';
        subCategory = info?.subCategory ?? 'image_classifier_evasion';
        modality = info?.modality === 'tabular' ? 'tabular' : 'image';
      } else {
        attackName = r.pick(attackPool);
        category = r.pick(categoryPool);
        const info = goalCategory(category);
        goal = r.pick(info.goals);
        subCategory = r.pick(info.subCategories);
        if (r.chance(0.65)) transforms = r.sample(transformPool, r.int(1, 2)).sort();
      }
      const info = goalCategory(category);
      const showcase = plan.roles.has('showcase') && k === Math.min(1, count - 1);
      const regressionRun = plan.roles.has('regression') && k === 0;
      const revision = regressionRun && epoch >= 1 ? 1 : 0;
      let targetBest = drawBestScore(r, project.weakness);
      if (showcase) targetBest = Math.max(targetBest, 0.93);
      if (regressionRun) targetBest = revision === 1 ? 0.96 : round(0.12 + 0.3 * r.next(), 2);
      let allFailed = !showcase && !regressionRun && r.chance(0.04);

      // Status and how many trials exist now.
      let status: RunStatus = 'completed';
      let visible = n;
      if (plan.status === 'pending') {
        status = 'pending';
        visible = 0;
      } else if (plan.status === 'running') {
        if (k === halfway) {
          status = 'running';
          visible = Math.floor(n * 0.4);
        } else if (k > halfway) {
          status = 'pending';
          visible = 0;
        }
      } else if (plan.status === 'failed') {
        if (k === halfway) allFailed = true;
        if (k > halfway) {
          status = 'failed';
          visible = 0;
        }
      }
      if (allFailed && visible > 0) {
        status = 'failed';
        visible = Math.max(1, Math.floor(n / 4));
      }

      const createdAt = runStart + k * 30 * SECOND;
      const wallMs = r.int(3, 40) * MINUTE + r.int(0, 59) * SECOND;
      let completedAt: number | null = null;
      if (status === 'completed' || (status === 'failed' && visible > 0)) {
        completedAt = createdAt + wallMs;
        // Runs that were still pending/running at epoch 0 finish after the base time.
        if (runningAtEpoch0 && k >= halfway) completedAt = BASE_TIME_MS + 2 * HOUR + k * 5 * MINUTE;
      } else if (status === 'failed') {
        completedAt = runStart + halfway * 30 * SECOND + wallMs;
      }

      runs.push({
        key: runKey,
        id: uuidFor(seed, `attack_run/${runKey}`),
        index: k,
        assessmentId: plan.id,
        assessmentName: plan.name,
        attackName,
        attackDomain: adversarial ? 'adversarial_ml' : 'generative',
        goal,
        goalCategory: category,
        subCategory,
        riskDomain: info.riskDomain,
        transforms,
        status,
        createdAt,
        completedAt,
        plannedTrials: n,
        visibleTrials: visible,
        targetBest,
        bestIndex: showcase ? 0 : r.int(0, n - 1),
        failRate: round(r.next() * 0.06, 3),
        pruneRate:
          attackName === 'tap_attack' || attackName === 'pair_attack'
            ? round(0.05 + r.next() * 0.1, 3)
            : round(r.next() * 0.03, 3),
        allFailed,
        trialSeed: hashString(`trials/${runKey}/rev${revision}`, seed),
        traceId: hexFor(seed, `trace/${runKey}/rev${revision}`, 4),
        attackerModel: plan.attackerModel,
        judgeModel: plan.judgeModel,
        targetModel: plan.targetModel,
        inputModality: modality,
        multimodal: modality === 'image' || (!adversarial && r.chance(0.2)),
        agentic:
          !adversarial &&
          (info.riskDomain === 'agentic' || (category === 'credential_leak' && r.chance(0.5))),
        showcase,
        futureFields: plan.roles.has('future_fields'),
        distanceNorm: adversarial ? r.pick(DISTANCE_NORMS) : null,
      });
    }
    return runs;
  }
}
