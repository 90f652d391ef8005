/**
 * How an attack run's or finding's `compliance_tags` (TAXONOMY.md "Compliance tags") name framework
 * categories: each tag field belongs to one framework of the compliance matrix. Reports use it to
 * carry what the service says about a goal category (its assessment `recommendations`) to the
 * framework categories the runs of that goal category were tagged with.
 *
 * A leaf module: it imports nothing.
 */

/** A category of a framework, in the compliance matrix's keys. */
export interface FrameworkCategoryRef {
  framework: string;
  tag: string;
}

/** `compliance_tags` field → compliance-matrix framework key. */
const TAG_FIELDS: Readonly<Record<string, string>> = {
  owasp_categories: 'owasp_llm',
  owasp_agentic_categories: 'owasp_agentic',
  atlas_techniques: 'atlas',
  saif_categories: 'saif',
  // The matrix's NIST rows are the AI RMF functions; the subcategory (MS-2.7) is finer than a row.
  nist_ai_rmf_function: 'nist',
};

/** The `compliance_tags` fields that name categories of `framework` (a compliance-matrix key). */
export function tagFieldsOf(framework: string): string[] {
  return Object.entries(TAG_FIELDS)
    .filter(([, key]) => key === framework)
    .map(([field]) => field);
}

/**
 * The framework categories a `compliance_tags` object names, sorted and without repeats. Anything
 * that is not a string or a list of strings (the map is free-form) is ignored, never guessed at.
 */
export function frameworkCategoriesOfTags(tags: unknown): FrameworkCategoryRef[] {
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) return [];
  const found = new Map<string, FrameworkCategoryRef>();
  for (const [field, framework] of Object.entries(TAG_FIELDS)) {
    const value = (tags as Record<string, unknown>)[field];
    const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    for (const tag of values) {
      if (typeof tag !== 'string' || tag === '') continue;
      found.set(JSON.stringify([framework, tag]), { framework, tag });
    }
  }
  return [...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ref]) => ref);
}
