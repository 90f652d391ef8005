/**
 * Compliance frameworks and their categories, as `shared/TAXONOMY.md` lists them: the one place that
 * knows a framework's human title ("OWASP LLM Top 10", "MITRE ATLAS", …) and its full category list.
 * The full list is the coverage denominator: an untested category still counts.
 *
 * A leaf module (it imports nothing): the warehouse's metric views (the coverage denominator) and the
 * reports (titles, order) both read it, so neither layer imports the other to share it.
 */

export interface FrameworkCategory {
  tag: string;
  /** Human title where the taxonomy gives one. */
  title: string | null;
}

export interface FrameworkDefinition {
  key: string;
  title: string;
  /** Category titles start with the category's own id (OWASP Agentic "ASI01 …"). */
  titleLeadsWithId?: true;
  categories: readonly FrameworkCategory[];
}

/** `{ tag: title }` pairs in taxonomy order. */
const titled = (entries: readonly (readonly [string, string | null])[]): FrameworkCategory[] =>
  entries.map(([tag, title]) => ({ tag, title }));

/**
 * Category titles. OWASP LLM: the official 2025 names. OWASP Agentic: the service's keys title-cased
 * ("agentic_asi01_behavior_hijacking" → "ASI01 Behavior Hijacking"), as the taxonomy names them by key
 * only. ATLAS: the public MITRE ATLAS technique names, sub-techniques as "Technique: Sub-technique";
 * an id whose name we could not confirm keeps a null title (the report then shows the id alone)
 * rather than an invented one. NIST AI RMF functions and SAIF keys: title-cased.
 */
export const FRAMEWORKS: readonly FrameworkDefinition[] = [
  {
    key: 'owasp_llm',
    title: 'OWASP LLM Top 10',
    categories: titled([
      ['LLM01:2025', 'Prompt Injection'],
      ['LLM02:2025', 'Sensitive Information Disclosure'],
      ['LLM03:2025', 'Supply Chain'],
      ['LLM04:2025', 'Data and Model Poisoning'],
      ['LLM05:2025', 'Improper Output Handling'],
      ['LLM06:2025', 'Excessive Agency'],
      ['LLM07:2025', 'System Prompt Leakage'],
      ['LLM08:2025', 'Vector and Embedding Weaknesses'],
      ['LLM09:2025', 'Misinformation'],
      ['LLM10:2025', 'Unbounded Consumption'],
    ]),
  },
  {
    key: 'owasp_agentic',
    title: 'OWASP Agentic Top 10',
    titleLeadsWithId: true,
    categories: titled([
      ['agentic_asi01_behavior_hijacking', 'ASI01 Behavior Hijacking'],
      ['agentic_asi02_tool_misuse', 'ASI02 Tool Misuse'],
      ['agentic_asi03_identity_abuse', 'ASI03 Identity Abuse'],
      ['agentic_asi04_supply_chain', 'ASI04 Supply Chain'],
      ['agentic_asi05_code_execution', 'ASI05 Code Execution'],
      ['agentic_asi06_memory_poisoning', 'ASI06 Memory Poisoning'],
      ['agentic_asi07_insecure_comms', 'ASI07 Insecure Comms'],
      ['agentic_asi08_cascading_failures', 'ASI08 Cascading Failures'],
      ['agentic_asi09_human_trust', 'ASI09 Human Trust'],
      ['agentic_asi10_rogue_agents', 'ASI10 Rogue Agents'],
    ]),
  },
  {
    key: 'atlas',
    title: 'MITRE ATLAS',
    categories: titled([
      ['AML.T0002', 'Acquire Public ML Artifacts'],
      ['AML.T0003', 'Search Victim-Owned Websites'],
      ['AML.T0000', "Search for Victim's Publicly Available Research Materials"],
      ['AML.T0001', 'Search for Publicly Available Adversarial Vulnerability Analysis'],
      ['AML.T0020', 'Poison Training Data'],
      ['AML.T0051', 'LLM Prompt Injection'],
      ['AML.T0051.000', 'LLM Prompt Injection: Direct'],
      ['AML.T0051.001', 'LLM Prompt Injection: Indirect'],
      ['AML.T0010', 'ML Supply Chain Compromise'],
      ['AML.T0018', 'Backdoor ML Model'],
      ['AML.T0019', 'Publish Poisoned Datasets'],
      ['AML.T0043', 'Craft Adversarial Data'],
      ['AML.T0043.001', 'Craft Adversarial Data: Black-Box Optimization'],
      ['AML.T0043.002', 'Craft Adversarial Data: Black-Box Transfer'],
      ['AML.T0044', 'Full ML Model Access'],
      ['AML.T0052', 'Phishing'],
      ['AML.T0053', 'LLM Plugin Compromise'],
      ['AML.T0024', 'Exfiltration via ML Inference API'],
      ['AML.T0024.000', 'Exfiltration via ML Inference API: Infer Training Data Membership'],
      ['AML.T0024.001', 'Exfiltration via ML Inference API: Invert ML Model'],
      ['AML.T0049', 'Exploit Public-Facing Application'],
      ['AML.T0042', 'Verify Attack'],
      ['AML.T0026', null],
      ['AML.T0040', 'ML Model Inference API Access'],
      ['AML.T0048', 'External Harms'],
      ['AML.T0054', 'LLM Jailbreak'],
      ['AML.T0029', 'Denial of ML Service'],
    ]),
  },
  {
    key: 'nist',
    title: 'NIST AI RMF',
    categories: titled([
      ['GOVERN', 'Govern'],
      ['MAP', 'Map'],
      ['MEASURE', 'Measure'],
      ['MANAGE', 'Manage'],
    ]),
  },
  {
    key: 'saif',
    title: 'Google SAIF',
    categories: titled([
      ['INPUT_MANIPULATION', 'Input Manipulation'],
      ['OUTPUT_MANIPULATION', 'Output Manipulation'],
      ['MODEL_THEFT', 'Model Theft'],
      ['DATA_POISONING', 'Data Poisoning'],
      ['SUPPLY_CHAIN_COMPROMISE', 'Supply Chain Compromise'],
      ['PRIVACY_LEAKAGE', 'Privacy Leakage'],
      ['AVAILABILITY_ATTACKS', 'Availability Attacks'],
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

/**
 * A category as a one-line label (chart axes): "LLM01:2025 Prompt Injection", "AML.T0054 LLM
 * Jailbreak", or the bare key when there is no title. OWASP Agentic titles already lead with the
 * key's own id ("ASI01 Behavior Hijacking"), so the long snake-case key is not repeated there; tables
 * show the full key in a column of its own.
 */
export function categoryLabel(
  frameworkKey: string,
  tag: string,
  title: string | null = categoryTitle(frameworkKey, tag),
): string {
  if (title === null) return tag;
  return findFramework(frameworkKey)?.titleLeadsWithId ? title : `${tag} ${title}`;
}

/** Framework keys in taxonomy order, then unknown keys alphabetically: the order every report uses. */
export function compareFrameworkKeys(a: string, b: string): number {
  const rank = (key: string): number => {
    const index = FRAMEWORKS.findIndex((framework) => framework.key === key);
    return index === -1 ? FRAMEWORKS.length : index;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
