/**
 * Which attack runs a compliance category covers, in SQL: an attack run carries its tags in
 * `compliance_tags` (TAXONOMY.md: a flat object, one field per framework), and
 * src/taxonomy/compliance-tags.ts is the one map from those fields to the compliance matrix's
 * framework keys. As there, a field holding a string names one category, a list of strings several;
 * anything else names none. For the viewer's finding pages and filters and the OSCAL export.
 */
import { tagFieldsOf } from '../taxonomy/compliance-tags.js';

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
