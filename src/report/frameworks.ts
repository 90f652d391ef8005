/**
 * Compliance frameworks and their categories, as `shared/TAXONOMY.md` lists them: the one place that
 * knows a framework's human title ("OWASP LLM Top 10", "MITRE ATLAS", …) and its full category list.
 * The full list is the coverage denominator: an untested category still counts.
 */

export interface FrameworkCategory {
  tag: string;
  /** Human title where the taxonomy gives one. */
  title: string | null;
}

export interface FrameworkDefinition {
  key: string;
  title: string;
  categories: readonly FrameworkCategory[];
}

const untitled = (tags: string[]): FrameworkCategory[] => tags.map((tag) => ({ tag, title: null }));

export const FRAMEWORKS: readonly FrameworkDefinition[] = [
  {
    key: 'owasp_llm',
    title: 'OWASP LLM Top 10',
    categories: [
      { tag: 'LLM01:2025', title: 'Prompt Injection' },
      { tag: 'LLM02:2025', title: 'Sensitive Information Disclosure' },
      { tag: 'LLM03:2025', title: 'Supply Chain' },
      { tag: 'LLM04:2025', title: 'Data and Model Poisoning' },
      { tag: 'LLM05:2025', title: 'Improper Output Handling' },
      { tag: 'LLM06:2025', title: 'Excessive Agency' },
      { tag: 'LLM07:2025', title: 'System Prompt Leakage' },
      { tag: 'LLM08:2025', title: 'Vector and Embedding Weaknesses' },
      { tag: 'LLM09:2025', title: 'Misinformation' },
      { tag: 'LLM10:2025', title: 'Unbounded Consumption' },
    ],
  },
  {
    key: 'owasp_agentic',
    title: 'OWASP Agentic Top 10',
    categories: untitled([
      'agentic_asi01_behavior_hijacking',
      'agentic_asi02_tool_misuse',
      'agentic_asi03_identity_abuse',
      'agentic_asi04_supply_chain',
      'agentic_asi05_code_execution',
      'agentic_asi06_memory_poisoning',
      'agentic_asi07_insecure_comms',
      'agentic_asi08_cascading_failures',
      'agentic_asi09_human_trust',
      'agentic_asi10_rogue_agents',
    ]),
  },
  {
    key: 'atlas',
    title: 'MITRE ATLAS',
    categories: [
      ...untitled([
        'AML.T0002',
        'AML.T0003',
        'AML.T0000',
        'AML.T0001',
        'AML.T0020',
        'AML.T0051',
        'AML.T0051.000',
        'AML.T0051.001',
        'AML.T0010',
        'AML.T0018',
        'AML.T0019',
        'AML.T0043',
        'AML.T0043.001',
        'AML.T0043.002',
        'AML.T0044',
        'AML.T0052',
        'AML.T0053',
        'AML.T0024',
        'AML.T0024.000',
        'AML.T0024.001',
        'AML.T0049',
        'AML.T0042',
        'AML.T0026',
        'AML.T0040',
        'AML.T0048',
      ]),
      { tag: 'AML.T0054', title: 'LLM Jailbreak' },
      { tag: 'AML.T0029', title: null },
    ],
  },
  {
    key: 'nist',
    title: 'NIST AI RMF',
    categories: [
      { tag: 'GOVERN', title: 'Govern' },
      { tag: 'MAP', title: 'Map' },
      { tag: 'MEASURE', title: 'Measure' },
      { tag: 'MANAGE', title: 'Manage' },
    ],
  },
  {
    key: 'saif',
    title: 'Google SAIF',
    categories: untitled([
      'INPUT_MANIPULATION',
      'OUTPUT_MANIPULATION',
      'MODEL_THEFT',
      'DATA_POISONING',
      'SUPPLY_CHAIN_COMPROMISE',
      'PRIVACY_LEAKAGE',
      'AVAILABILITY_ATTACKS',
    ]),
  },
];

/** The framework definition for a key, or undefined for a framework the taxonomy does not know. */
export function findFramework(key: string): FrameworkDefinition | undefined {
  return FRAMEWORKS.find((framework) => framework.key === key);
}

/** Human title of a framework; an unknown key is shown as itself (it is data, escaped on output). */
export function frameworkTitle(key: string): string {
  return findFramework(key)?.title ?? key;
}

/** Human title of a category within a framework, when the taxonomy has one. */
export function categoryTitle(frameworkKey: string, tag: string): string | null {
  return findFramework(frameworkKey)?.categories.find((category) => category.tag === tag)?.title ?? null;
}

/** Framework keys in taxonomy order, then unknown keys alphabetically: the order every report uses. */
export function compareFrameworkKeys(a: string, b: string): number {
  const rank = (key: string): number => {
    const index = FRAMEWORKS.findIndex((framework) => framework.key === key);
    return index === -1 ? FRAMEWORKS.length : index;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
