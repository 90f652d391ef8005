/**
 * `compliance_tags` to framework categories: each tag field names one compliance-matrix framework;
 * the free-form map's other shapes are ignored, never guessed at.
 */
import { describe, expect, it } from 'vitest';
import { frameworkCategoriesOfTags } from '../../src/taxonomy/compliance-tags.js';

describe('frameworkCategoriesOfTags', () => {
  it('maps every tag field to its framework, sorted, without repeats', () => {
    expect(
      frameworkCategoriesOfTags({
        owasp_categories: ['LLM07:2025', 'LLM01:2025', 'LLM01:2025'],
        owasp_agentic_categories: ['agentic_asi02_tool_misuse'],
        atlas_techniques: ['AML.T0054'],
        saif_categories: ['INPUT_MANIPULATION'],
        nist_ai_rmf_function: 'MEASURE',
        nist_ai_rmf_subcategory: 'MS-2.7',
      }),
    ).toEqual([
      { framework: 'atlas', tag: 'AML.T0054' },
      { framework: 'nist', tag: 'MEASURE' },
      { framework: 'owasp_agentic', tag: 'agentic_asi02_tool_misuse' },
      { framework: 'owasp_llm', tag: 'LLM01:2025' },
      { framework: 'owasp_llm', tag: 'LLM07:2025' },
      { framework: 'saif', tag: 'INPUT_MANIPULATION' },
    ]);
  });

  it.each([null, 'LLM01:2025', ['LLM01:2025'], 42])('ignores a tags value that is not a map: %j', (tags) => {
    expect(frameworkCategoriesOfTags(tags)).toEqual([]);
  });

  it('ignores values that are not strings and unknown fields', () => {
    expect(
      frameworkCategoriesOfTags({
        owasp_categories: [1, null, '', { x: 1 }, 'LLM02:2025'],
        atlas_techniques: { id: 'AML.T0054' },
        custom: ['X'],
      }),
    ).toEqual([{ framework: 'owasp_llm', tag: 'LLM02:2025' }]);
  });
});
