/**
 * The frameworks the viewer's finding pages and filters offer: those an attack run's `compliance_tags`
 * can name (src/taxonomy/compliance-tags.ts), with their titles. Which runs a category covers, in SQL,
 * is src/warehouse/run-compliance-tags.ts (shared with the OSCAL export).
 */
import { tagFieldsOf } from '../taxonomy/compliance-tags.js';
import { FRAMEWORKS } from '../taxonomy/frameworks.js';

/** Framework keys the viewer can filter by (those an attack run can be tagged with), taxonomy order. */
export const FRAMEWORK_KEYS: readonly string[] = FRAMEWORKS.map((f) => f.key).filter(
  (key) => tagFieldsOf(key).length > 0,
);

/** A framework's title, or its key when the taxonomy has none. */
export function frameworkTitle(key: string): string {
  return FRAMEWORKS.find((f) => f.key === key)?.title ?? key;
}
