/**
 * Short remediation guidance shipped with the tool, per framework category, with a link to the
 * framework's own page (official sites only: OWASP GenAI, MITRE ATLAS, NIST, Google SAIF). Reports
 * show it under a failing category when the service sent no recommendation of its own for it (the
 * link is shown with the service's recommendations too). Written for
 * this project as a starting point, not a substitute for the framework's text.
 *
 * A leaf module: it imports nothing.
 */

/** Guidance for one category: what to do, and where the framework says more. */
export interface Remediation {
  guidance: string;
  url: string;
}

const OWASP_LLM_URL = 'https://genai.owasp.org/llm-top-10/';
// The OWASP GenAI Security Project's own resource page for the Agentic Top 10 (ASI01–ASI10, published
// December 2025), the address OWASP and the projects that map to the list cite (checked 2026-11).
const OWASP_AGENTIC_URL = 'https://genai.owasp.org/resource/owasp-top-10-for-agentic-applications-for-2026/';
const NIST_AI_RMF_URL = 'https://www.nist.gov/itl/ai-risk-management-framework';
const SAIF_URL = 'https://saif.google/';
const ATLAS_TECHNIQUE_URL = 'https://atlas.mitre.org/techniques/';

const OWASP_LLM: Record<string, string> = {
  'LLM01:2025':
    'Treat all user and retrieved text as untrusted: separate it from instructions, filter inputs and outputs, give the model least privilege, and require approval for high-impact actions.',
  'LLM02:2025':
    'Keep secrets and personal data out of prompts and training data, redact model output, and enforce access control on the data the application can retrieve.',
  'LLM03:2025':
    'Inventory models, datasets and plugins with their provenance, pin and verify them, and review third-party components before use.',
  'LLM04:2025':
    'Vet and track training and fine-tuning data sources, validate data before use, and test the model for backdoors and drift.',
  'LLM05:2025':
    'Validate and encode model output for its destination (HTML, SQL, shell) as you would any untrusted input; never execute it directly.',
  'LLM06:2025':
    'Limit the tools and permissions the model can use to what the task needs, and require human approval for consequential actions.',
  'LLM07:2025':
    'Keep credentials and security rules out of the system prompt; enforce them outside the model, and assume the prompt can be disclosed.',
  'LLM08:2025':
    'Apply access control to embeddings and vector stores per user or tenant, and validate documents before they are indexed.',
  'LLM09:2025':
    'Ground answers in trusted sources, show citations, and have people check output used for decisions.',
  'LLM10:2025':
    'Set rate limits, input size limits, timeouts and budgets per user, and monitor resource use.',
};

const OWASP_AGENTIC: Record<string, string> = {
  agentic_asi01_behavior_hijacking:
    "Keep the agent's goals out of reach of untrusted content: separate instructions from data and check plans against the intended task before acting.",
  agentic_asi02_tool_misuse:
    'Allow only the tools and arguments a task needs, validate every tool call, and sandbox tools with side effects.',
  agentic_asi03_identity_abuse:
    'Give each agent its own short-lived, narrowly scoped identity; never pass user credentials through the model.',
  agentic_asi04_supply_chain:
    'Pin and verify the tools, plugins, prompts and agent components you load, and review them like any dependency.',
  agentic_asi05_code_execution:
    'Run generated code only in an isolated sandbox without secrets or network access unless required, and review it before use.',
  agentic_asi06_memory_poisoning:
    'Validate what is written to agent memory and context, record its source, and let memory expire or be reviewed.',
  agentic_asi07_insecure_comms:
    'Authenticate and authorise messages between agents, and validate their content as untrusted input.',
  agentic_asi08_cascading_failures:
    'Bound the steps, retries and fan-out of agent workflows, and add checks and circuit breakers between stages.',
  agentic_asi09_human_trust:
    'Show people what the agent did and why, and require explicit confirmation before actions they cannot easily undo.',
  agentic_asi10_rogue_agents:
    'Monitor agent behaviour against its declared purpose, log actions, and keep a way to stop or revoke an agent.',
};

const NIST: Record<string, string> = {
  GOVERN: 'Assign owners and policies for AI risk, including how red-team results are reviewed and acted on.',
  MAP: 'Document the system context, intended use and the harms that failing categories could cause.',
  MEASURE:
    'Track the failing results as measured risks, re-test after each fix, and record the evidence (MEASURE 2.7: security and resilience).',
  MANAGE:
    'Prioritise and treat the risks found, decide on residual risk explicitly, and plan responses to incidents.',
};

const SAIF: Record<string, string> = {
  INPUT_MANIPULATION:
    'Filter and constrain inputs to the model, and keep untrusted input apart from instructions.',
  OUTPUT_MANIPULATION: 'Validate and sanitise model output before it reaches users or other systems.',
  MODEL_THEFT:
    'Protect model weights and APIs with access control, rate limits and monitoring for extraction.',
  DATA_POISONING: 'Control and verify the sources of training and retrieval data, and monitor for tampering.',
  SUPPLY_CHAIN_COMPROMISE: 'Verify the provenance and integrity of models, data and libraries you depend on.',
  PRIVACY_LEAKAGE: 'Minimise personal data in training and context, and filter output for it.',
  AVAILABILITY_ATTACKS: 'Apply quotas, input limits and timeouts, and monitor for resource exhaustion.',
};

const ATLAS_GUIDANCE = 'See the technique page for its documented mitigations; re-test after applying them.';

/** Guidance for a category of a framework (taxonomy keys), or null when we ship none for it. */
export function remediationFor(framework: string, tag: string): Remediation | null {
  const table: Record<string, [Record<string, string>, string]> = {
    owasp_llm: [OWASP_LLM, OWASP_LLM_URL],
    owasp_agentic: [OWASP_AGENTIC, OWASP_AGENTIC_URL],
    nist: [NIST, NIST_AI_RMF_URL],
    saif: [SAIF, SAIF_URL],
  };
  if (framework === 'atlas') {
    // ATLAS ids look like AML.T0051 or AML.T0051.000; anything else gets no link.
    return /^AML\.T\d{4}(\.\d{3})?$/.test(tag)
      ? { guidance: ATLAS_GUIDANCE, url: `${ATLAS_TECHNIQUE_URL}${tag}` }
      : null;
  }
  const entry = table[framework];
  if (entry === undefined) return null;
  const guidance = entry[0][tag];
  return guidance === undefined ? null : { guidance, url: entry[1] };
}
