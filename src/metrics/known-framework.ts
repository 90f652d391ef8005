/**
 * A report's `--framework`: the one check of the compliance report and the OSCAL export, so both
 * refuse an unknown framework with the same usage error (exit 2), naming the known ones.
 */
import { UsageError } from '../errors.js';
import { compareFrameworkKeys, findFramework, FRAMEWORKS } from '../taxonomy/frameworks.js';

/**
 * Refuses a `framework` that is neither a known framework (the taxonomy) nor one the data holds
 * (`present`).
 */
export function requireKnownFramework(framework: string, present: readonly string[]): void {
  if (present.includes(framework) || findFramework(framework) !== undefined) return;
  const known = [...new Set([...FRAMEWORKS.map((entry) => entry.key), ...present])].sort(
    compareFrameworkKeys,
  );
  throw new UsageError(
    `Unknown compliance framework ${JSON.stringify(framework)}. Known frameworks: ${known.join(', ')}.`,
  );
}
