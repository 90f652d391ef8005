/**
 * Compliance frameworks (every row of each, as the compliance matrix lists them) and the compliance
 * tags attacks carry by themselves (shared/TAXONOMY.md "Compliance tags" / "Compliance matrix").
 */
import type { ComplianceTagSet } from './taxonomy.js';
/** Compliance tags of a jailbreak-style (generative) attack, before the goal's own tags. */
export const GENERATIVE_ATTACK_TAGS: ComplianceTagSet = {
  owasp: ['LLM01:2025'],
  atlas: ['AML.T0051.000', 'AML.T0054'],
  saif: ['INPUT_MANIPULATION'],
  nist: ['MEASURE', 'MS-2.7'],
};

export const ADVERSARIAL_ML_ATTACK_TAGS: Readonly<Record<string, ComplianceTagSet>> = {
  hop_skip_jump_attack: {
    atlas: ['AML.T0043', 'AML.T0043.001', 'AML.T0042'],
    saif: ['INPUT_MANIPULATION'],
    nist: ['MEASURE', 'MS-2.7'],
  },
  nes_attack: {
    atlas: ['AML.T0043', 'AML.T0043.002'],
    saif: ['INPUT_MANIPULATION'],
    nist: ['MEASURE', 'MS-2.7'],
  },
  simba_attack: {
    atlas: ['AML.T0043', 'AML.T0043.001'],
    saif: ['INPUT_MANIPULATION'],
    nist: ['MEASURE', 'MS-2.7'],
  },
  zoo_attack: {
    atlas: ['AML.T0043', 'AML.T0043.002', 'AML.T0040'],
    saif: ['INPUT_MANIPULATION'],
    nist: ['MEASURE', 'MS-2.7'],
  },
  knockoff_extraction: {
    atlas: ['AML.T0024.001', 'AML.T0044', 'AML.T0040'],
    saif: ['MODEL_THEFT'],
    nist: ['MEASURE', 'MS-2.9'],
  },
  shadow_model_membership: {
    atlas: ['AML.T0024.000', 'AML.T0040'],
    saif: ['PRIVACY_LEAKAGE'],
    nist: ['MEASURE', 'MS-2.8'],
  },
};

export interface Framework {
  key: string;
  title: string;
  /** Tag field of `compliance_tags` feeding this framework. */
  tagField: keyof ComplianceTagSet;
  rows: readonly string[];
}

export const FRAMEWORKS: readonly Framework[] = [
  {
    key: 'owasp_llm',
    title: 'OWASP LLM Top 10',
    tagField: 'owasp',
    rows: [
      'LLM01:2025',
      'LLM02:2025',
      'LLM03:2025',
      'LLM04:2025',
      'LLM05:2025',
      'LLM06:2025',
      'LLM07:2025',
      'LLM08:2025',
      'LLM09:2025',
      'LLM10:2025',
    ],
  },
  {
    key: 'owasp_agentic',
    title: 'OWASP Agentic Top 10',
    tagField: 'agentic',
    rows: [
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
    ],
  },
  {
    key: 'atlas',
    title: 'MITRE ATLAS',
    tagField: 'atlas',
    rows: [
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
      'AML.T0054',
      'AML.T0029',
    ],
  },
  { key: 'nist', title: 'NIST AI RMF', tagField: 'nist', rows: ['GOVERN', 'MAP', 'MEASURE', 'MANAGE'] },
  {
    key: 'saif',
    title: 'Google SAIF',
    tagField: 'saif',
    rows: [
      'INPUT_MANIPULATION',
      'OUTPUT_MANIPULATION',
      'MODEL_THEFT',
      'DATA_POISONING',
      'SUPPLY_CHAIN_COMPROMISE',
      'PRIVACY_LEAKAGE',
      'AVAILABILITY_ATTACKS',
    ],
  },
];
