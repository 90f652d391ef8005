/**
 * Which attack runs a compliance category covers. An attack run carries its tags in
 * `compliance_tags` (TAXONOMY.md: a flat object, one key per framework), while the compliance matrix
 * names frameworks by their own keys; this is the one map between the two. NIST AI RMF tags a run
 * with one function (a string), the others with lists.
 */
import { FRAMEWORKS } from '../taxonomy/frameworks.js';

const TAG_KEYS: Readonly<Record<string, { key: string; list: boolean }>> = {
  owasp_llm: { key: 'owasp_categories', list: true },
  owasp_agentic: { key: 'owasp_agentic_categories', list: true },
  atlas: { key: 'atlas_techniques', list: true },
  saif: { key: 'saif_categories', list: true },
  nist: { key: 'nist_ai_rmf_function', list: false },
};

/** Framework keys the viewer can filter by, in taxonomy order. */
export const FRAMEWORK_KEYS: readonly string[] = FRAMEWORKS.map((f) => f.key).filter(
  (key) => key in TAG_KEYS,
);

/** A framework's title, or its key when the taxonomy has none. */
export function frameworkTitle(key: string): string {
  return FRAMEWORKS.find((f) => f.key === key)?.title ?? key;
}

/**
 * SQL for the list of tags `framework` gives the attack run aliased `run` (a VARCHAR[]). The key
 * comes from the fixed map above, never from the request.
 */
export function runTagsSql(framework: string, run: string): string {
  const entry = TAG_KEYS[framework];
  if (entry === undefined) return '[]::VARCHAR[]';
  return entry.list
    ? `coalesce(from_json(${run}.compliance_tags -> '${entry.key}', '["VARCHAR"]'), []::VARCHAR[])`
    : `list_filter([${run}.compliance_tags ->> '${entry.key}'], x -> x IS NOT NULL)`;
}
