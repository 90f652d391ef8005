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

/**
 * SQL for the categories of `framework` that the attack run aliased `run` is tagged with (a
 * VARCHAR[]). Field names come from the taxonomy module, never from the request.
 */
export function runTagsSql(framework: string, run: string): string {
  const lists = tagFieldsOf(framework).map((field) => {
    const value = `${run}.compliance_tags -> '${field}'`;
    return `CASE json_type(${value})
      WHEN 'ARRAY' THEN coalesce(from_json(${value}, '["VARCHAR"]'), []::VARCHAR[])
      WHEN 'VARCHAR' THEN [${run}.compliance_tags ->> '${field}']
      ELSE []::VARCHAR[] END`;
  });
  return lists.length === 0 ? '[]::VARCHAR[]' : lists.reduce((all, next) => `list_concat(${all}, ${next})`);
}
