/**
 * Which attack runs a compliance category covers, in SQL: an attack run carries its tags in
 * `compliance_tags` (TAXONOMY.md: a flat object, one field per framework), and
 * src/taxonomy/compliance-tags.ts is the one map from those fields to the compliance matrix's
 * framework keys. As there, a field holding a string names one category, a list of strings several;
 * anything else names none.
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

export { runTagsSql } from '../warehouse/run-compliance-tags.js';
