/**
 * Which assessments play the planted roles (pending, running, failed, legacy compliance, garbage
 * slice, adversarial ML, deep, regression, showcase, future fields), and how strong an attack run is.
 */
import type { AssessmentRole } from './plan-types.js';
import { round, type Rng } from './prng.js';

/** Best score an attack run reaches: a mix of strong, partial and refused attacks. */
export function drawBestScore(rng: Rng, weakness: number): number {
  const u = Math.min(0.999, rng.next() * weakness + (1 - weakness) * 0.35);
  if (u > 0.72) return round(0.9 + rng.next() * 0.1, 2);
  if (u > 0.55) return round(0.7 + rng.next() * 0.2, 2);
  if (u > 0.42) return round(0.5 + rng.next() * 0.2, 2);
  if (u > 0.28) return round(0.3 + rng.next() * 0.2, 2);
  return round(rng.next() * 0.3, 2);
}

/**
 * Which assessment (by index, oldest first) plays which planted role in a project. Status roles and
 * feature roles never share an assessment; `showcase`/`future_fields` combine with anything analyzed.
 */
export function assignRoles(projectIndex: number, count: number): Map<number, Set<AssessmentRole>> {
  const roles = new Map<number, Set<AssessmentRole>>();
  const exclusive = new Set<number>();
  const want = (role: AssessmentRole, index: number, shared = false): void => {
    if (index < 0 || index >= count) return;
    if (!shared && exclusive.has(index)) return;
    const set = roles.get(index) ?? new Set<AssessmentRole>();
    set.add(role);
    roles.set(index, set);
    if (!shared) exclusive.add(index);
  };
  if (projectIndex === 0) {
    want('pending', count - 1);
    want('running', count - 2);
    want('legacy_compliance', 0);
    want('garbage_slice', 1);
    want('adversarial_ml', 2);
    want('regression', count - 3);
    want('deep', 3, true);
    want('showcase', 0, true);
    want('future_fields', 2, true);
  } else {
    if (projectIndex % 2 === 1) want('running', count - 1);
    if (projectIndex === 1) {
      want('failed', 1);
      want('garbage_slice', 2);
      want('future_fields', 0, true);
    }
    if (projectIndex === 2) {
      want('legacy_compliance', 0);
      want('adversarial_ml', 1);
      want('deep', 2, true);
    }
  }
  return roles;
}
