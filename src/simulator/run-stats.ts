/**
 * Trial skeletons and per-run aggregates. A skeleton (status, score, execution time) is a pure function
 * of (run, trial index), so the aggregates a summary needs (best score, counts, jailbreaks) can be
 * computed by a cheap loop without building any trial object, and the full trials generated later
 * for the trials endpoint agree with them by construction. Only the small aggregates are cached.
 */
import type { AttackRunPlan } from './plan-types.js';
import { mix, unit, round } from './prng.js';

export type TrialStatus = 'finished' | 'failed' | 'pruned';

export interface TrialSkeleton {
  status: TrialStatus;
  score: number;
  execMs: number;
}

const JAILBREAK_THRESHOLD = 0.5;

export function skeletonAt(run: AttackRunPlan, index: number): TrialSkeleton {
  const h = mix(run.trialSeed, index);
  const u1 = unit(h);
  const u2 = unit(mix(h, 1));
  const u3 = unit(mix(h, 2));
  if (run.allFailed) return { status: 'failed', score: 0, execMs: 1000 + Math.floor(u3 * 29000) };
  if (index === run.bestIndex)
    return { status: 'finished', score: run.targetBest, execMs: 800 + Math.floor(u3 * u3 * 24000) };
  if (u1 < run.failRate) return { status: 'failed', score: 0, execMs: 1000 + Math.floor(u3 * 29000) };
  if (u1 < run.failRate + run.pruneRate) {
    return {
      status: 'pruned',
      score: round(Math.min(0.2, run.targetBest) * u2, 2),
      execMs: 300 + Math.floor(u3 * 4000),
    };
  }
  return {
    status: 'finished',
    score: round(run.targetBest * u2 ** 1.6, 2),
    execMs: 800 + Math.floor(u3 * u3 * 24000),
  };
}

export function isJailbreak(skeleton: TrialSkeleton): boolean {
  return skeleton.status === 'finished' && skeleton.score >= JAILBREAK_THRESHOLD;
}

/** Aggregates over the visible trials of one run. */
export interface RunStats {
  trials: number;
  finished: number;
  failed: number;
  pruned: number;
  jailbreaks: number;
  /** Best finished-trial score, null when no trial finished. */
  bestScore: number | null;
  bestIndex: number | null;
  minFinishedScore: number | null;
  sumFinishedScore: number;
  totalExecMs: number;
  /** Indexes of the (up to) three best finished trials, best first. */
  topIndexes: number[];
}

function computeRunStats(run: AttackRunPlan): RunStats {
  const stats: RunStats = {
    trials: run.visibleTrials,
    finished: 0,
    failed: 0,
    pruned: 0,
    jailbreaks: 0,
    bestScore: null,
    bestIndex: null,
    minFinishedScore: null,
    sumFinishedScore: 0,
    totalExecMs: 0,
    topIndexes: [],
  };
  const top: { index: number; score: number }[] = [];
  for (let i = 0; i < run.visibleTrials; i++) {
    const t = skeletonAt(run, i);
    stats.totalExecMs += t.execMs;
    if (t.status === 'failed') stats.failed++;
    else if (t.status === 'pruned') stats.pruned++;
    else {
      stats.finished++;
      stats.sumFinishedScore += t.score;
      if (t.score >= JAILBREAK_THRESHOLD) stats.jailbreaks++;
      if (stats.bestScore === null || t.score > stats.bestScore) {
        stats.bestScore = t.score;
        stats.bestIndex = i;
      }
      if (stats.minFinishedScore === null || t.score < stats.minFinishedScore)
        stats.minFinishedScore = t.score;
      if (top.length < 3 || t.score > (top[top.length - 1]?.score ?? -1)) {
        top.push({ index: i, score: t.score });
        top.sort((a, b) => b.score - a.score || a.index - b.index);
        if (top.length > 3) top.pop();
      }
    }
  }
  stats.sumFinishedScore = round(stats.sumFinishedScore, 4);
  stats.topIndexes = top.map((t) => t.index);
  return stats;
}

/** Caches run aggregates by the identity of the trials they summarize (small objects only). */
export class RunStatsCache {
  private readonly cache = new Map<string, RunStats>();

  get(run: AttackRunPlan): RunStats {
    const key = `${run.id}/${run.trialSeed}/${run.visibleTrials}`;
    let stats = this.cache.get(key);
    if (!stats) {
      stats = computeRunStats(run);
      this.cache.set(key, stats);
    }
    return stats;
  }
}
