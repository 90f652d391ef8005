/**
 * Options of the simulator, their defaults and the size presets. Every field is resolved once into a
 * frozen `ResolvedOptions` that the generators read; nothing reads the environment.
 */
import { InvalidOptionError, UsageError } from '../errors.js';
import { resolveFaults, type FaultSpec } from './faults.js';

/** How much data each workspace holds. */
export interface SimulatorScale {
  /** Assessments per project at epoch 0 (each later epoch adds one per project). Default 6. */
  assessmentsPerProject: number;
  /** Attack runs per assessment. Default 8. */
  attacksPerAssessment: number;
  /** Mean trials per attack run (each run varies ±25%). Default 40. */
  trialsPerAttack: number;
  /** Evaluation jobs at epoch 0 across all projects. Default 260 (3 pages of 100). */
  evaluationJobs: number;
  /** Upper bound of trials in one assessment (the service's trial `limit` maximum). Default 5000. */
  maxTrialsPerAssessment: number;
}

/** A size preset of the simulator. */
export type SimulatorPreset = 'small' | 'large';

/** The simulator's size presets (projects and scale). */
export const PRESETS: Readonly<Record<SimulatorPreset, { projects: number; scale: SimulatorScale }>> = {
  small: {
    projects: 3,
    scale: {
      assessmentsPerProject: 6,
      attacksPerAssessment: 8,
      trialsPerAttack: 40,
      evaluationJobs: 260,
      maxTrialsPerAssessment: 5000,
    },
  },
  // >= 1,000,000 trial spans in total, every assessment at most 5000 trials.
  large: {
    projects: 6,
    scale: {
      assessmentsPerProject: 40,
      attacksPerAssessment: 10,
      trialsPerAttack: 460,
      evaluationJobs: 600,
      maxTrialsPerAssessment: 5000,
    },
  },
};

/** How startSimulator builds its service: seed, sizes, token, faults, epoch and special cases. */
export interface SimulatorOptions {
  /** Default 1; same seed (and epoch) gives the same bytes for every response. */
  seed?: number;
  /** Default 127.0.0.1; only loopback addresses are accepted. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** Bearer token required on operations 1-5. Default 'sim-token'. */
  token?: string;
  /** A second token accepted for GETs; PATCH/PUT with it answer 403 forbidden_error. */
  readOnlyToken?: string;
  /** Organization slug. Default 'acme'. */
  org?: string;
  /** Workspace slug. Default 'main'. */
  workspace?: string;
  /** Number of projects. Default 3 (large preset: 6). */
  projects?: number;
  /** Size preset; `scale` and `projects` override its fields. Default 'small'. */
  preset?: SimulatorPreset;
  scale?: Partial<SimulatorScale>;
  /** e.g. '429=0.1,502=0.05,504=0.02,latency=20ms,cut=0.01'. Default: none. */
  faults?: string | FaultSpec;
  /** Logical time step. Default 0; later epochs add assessments, a regression and job changes. */
  epoch?: number;
  /** Operations 1-5 answer 426 upgrade_required_error; the config still answers. */
  upgradeRequired?: boolean;
  /** Adds a project whose slug is `../../etc` (path-safety tests of snapshot writers). */
  hostileSlug?: boolean;
  /** Each assessment's first trials carry BROKEN_TEXT (lone surrogate, NUL, 1 MB, unknown key). */
  brokenText?: boolean;
  /** Whether the organization has a payment method (auto-refill cannot be enabled without). Default true. */
  hasPaymentMethod?: boolean;
}

export interface ResolvedOptions {
  seed: number;
  host: string;
  port: number;
  token: string;
  readOnlyToken: string | undefined;
  org: string;
  workspace: string;
  projects: number;
  scale: SimulatorScale;
  faults: FaultSpec;
  epoch: number;
  upgradeRequired: boolean;
  hostileSlug: boolean;
  brokenText: boolean;
  hasPaymentMethod: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min)
    throw new UsageError(`${name} must be an integer >= ${min}, got ${value}.`);
  return value;
}

export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const preset = PRESETS[options.preset ?? 'small'];
  if (!preset) throw new UsageError(`Unknown preset ${JSON.stringify(options.preset)}: use small or large.`);
  const scale: SimulatorScale = { ...preset.scale, ...options.scale };
  positiveInt('assessmentsPerProject', scale.assessmentsPerProject);
  positiveInt('attacksPerAssessment', scale.attacksPerAssessment);
  positiveInt('trialsPerAttack', scale.trialsPerAttack);
  positiveInt('evaluationJobs', scale.evaluationJobs, 0);
  positiveInt('maxTrialsPerAssessment', scale.maxTrialsPerAssessment);
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new InvalidOptionError(
      'host',
      (name) => `The simulator listens on loopback only; ${name('host')} ${host} is not a loopback address.`,
    );
  const token = options.token ?? 'sim-token';
  if (!token) throw new UsageError('The simulator token must not be empty.');
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) {
    throw new InvalidOptionError('seed', (name) => `${name('seed')} must be an integer, got ${seed}.`);
  }
  return Object.freeze({
    seed,
    host,
    port: positiveInt('port', options.port ?? 0, 0),
    token,
    readOnlyToken: options.readOnlyToken,
    org: options.org ?? 'acme',
    workspace: options.workspace ?? 'main',
    projects: positiveInt('projects', options.projects ?? preset.projects),
    scale: Object.freeze(scale),
    faults: resolveFaults(options.faults),
    epoch: positiveInt('epoch', options.epoch ?? 0, 0),
    upgradeRequired: options.upgradeRequired ?? false,
    hostileSlug: options.hostileSlug ?? false,
    brokenText: options.brokenText ?? false,
    hasPaymentMethod: options.hasPaymentMethod ?? true,
  });
}
