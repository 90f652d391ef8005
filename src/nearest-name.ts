/**
 * "Did you mean …?" for mistyped names (config keys, command-line options): the known key nearest to an unknown one by edit
 * distance, when it is close enough to be a likely typo rather than a different word.
 */

/**
 * Edit distance counting insertions, deletions, substitutions and swaps of two neighbouring letters,
 * each 1 (optimal string alignment): `--quite` is one slip away from `--quiet`, not two.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known key nearest to `unknown`, or undefined when none is within a third of the longer key's
 * length (at least 1, at most 3 edits): `concurency` → `concurrency`, but `colour` → nothing.
 * Ties go to the key listed first, so the answer does not depend on anything but the inputs.
 */
export function nearestKey(unknown: string, known: Iterable<string>): string | undefined {
  const wanted = unknown.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(wanted, key.toLowerCase());
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(wanted.length, key.length) / 3)));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}
