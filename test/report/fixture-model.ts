/**
 * Hand-written report models for the renderer tests and golden files. Every kind of data text carries
 * hostile content: script tags, event-handler images, javascript: links, Markdown table breakers,
 * backslashes, newlines, bidi overrides, backticks, autolinks, template syntax and long strings with
 * a surrogate pair at the truncation boundary. One assessment carries an analytics warning, so its
 * asr_by_category and compliance_matrix slices are unknown (excluded), never zero.
 */
import {
  classifyCategory,
  DEFAULT_MIN_TRIALS_FOR_EVIDENCE,
  type ComplianceCell,
} from '../../src/report/compliance-state.js';
import { FRAMEWORKS } from '../../src/report/frameworks.js';
import type {
  ComplianceFrameworkSection,
  ComplianceModel,
  DataQuality,
  ExecutiveModel,
  PortfolioModel,
  Provenance,
  ProjectRef,
  SinceLastSnapshot,
} from '../../src/report/model.js';
import { complianceNarrative, executiveNarrative, portfolioNarrative } from '../../src/report/narrative.js';

/** Set by any payload that manages to execute. */
export const PWNED_FLAG = '__airtPwned';

export const HOSTILE = {
  script: `<script>window.${PWNED_FLAG}=1</script>`,
  img: `<img src=x onerror="window.${PWNED_FLAG}=1">`,
  jsLink: `[click me](javascript:window.${PWNED_FLAG}=1)`,
  rawJsLink: `<a href="javascript:window.${PWNED_FLAG}=1">open</a>`,
  table: '| injected | cells | here |\n|---|---|---|',
  backslash: 'ends with a backslash \\',
  newline: 'line one\nline two\r\nline three',
  bidi: 'safe\u202Etxt.exe',
  backticks: '``` fence ` and `code`',
  image: '![tracker](https://evil.example/pixel.png)',
  autolink: 'see <https://evil.example> or www.evil.example or mail@evil.example',
  template: '{{constructor.constructor "alert(1)"}}',
  svg: `<svg onload="window.${PWNED_FLAG}=1"><text>x</text></svg>`,
  entity: '&lt;script&gt; &amp;',
  style: '<style>body{display:none}</style>',
} as const;

/** 300 code points ending in emoji, so a 280 cut lands next to a surrogate pair. */
export const LONG_TEXT = `${'A'.repeat(278)}😀😀${'B'.repeat(20)}`;

export const SNAPSHOT_ID = '20260105T120000Z-7f3a';
export const OLDER_SNAPSHOT_ID = '20251201T120000Z-1c2d';
export const LEGACY_ASSESSMENT = { id: '00000000-0000-4000-8000-00000000000c', name: 'Legacy run <b>3</b>' };

const project: ProjectRef = {
  id: '11111111-1111-4111-8111-111111111111',
  key: 'support-bot',
  name: `Support bot ${HOSTILE.script}`,
};

const assessments = [
  {
    id: '00000000-0000-4000-8000-00000000000a',
    name: `Baseline ${HOSTILE.img}`,
    date: '2025-11-03T09:00:00Z',
  },
  {
    id: '00000000-0000-4000-8000-00000000000b',
    name: 'Regression | pipes | here',
    date: '2025-12-01T09:30:00Z',
  },
  { ...LEGACY_ASSESSMENT, date: '2025-12-15T10:00:00Z' },
  {
    id: '00000000-0000-4000-8000-00000000000d',
    name: `Latest ${HOSTILE.bidi}`,
    date: '2026-01-04T16:45:00Z',
  },
];

function provenance(): Provenance {
  return {
    toolVersion: '0.1.0',
    snapshots: [
      {
        snapshotId: SNAPSHOT_ID,
        org: 'acme',
        workspace: `main ${HOSTILE.jsLink}`,
        status: 'partial',
        rootSha256: '9f2c1d0e4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0',
        fetchedAt: '2026-01-05T12:00:00Z',
        snapshotToolVersion: '0.1.0',
        apiVersion: '1.4.2',
        appVersion: null,
        figures: true,
      },
    ],
  };
}

function dataQuality(): DataQuality {
  return {
    analyticsWarnings: [
      {
        project,
        assessmentId: LEGACY_ASSESSMENT.id,
        assessmentName: LEGACY_ASSESSMENT.name,
        field: 'asr_by_category',
        reason: `stored in legacy format ${HOSTILE.img}`,
        excluded: 'ASR by goal category of this assessment',
      },
      {
        project,
        assessmentId: LEGACY_ASSESSMENT.id,
        assessmentName: LEGACY_ASSESSMENT.name,
        field: 'compliance_matrix',
        reason: 'legacy compliance entries',
        excluded: 'compliance matrix cells of this assessment (heatmap and category states)',
      },
    ],
    legacyData: [
      {
        project,
        assessmentId: assessments[1]?.id ?? null,
        assessmentName: assessments[1]?.name ?? null,
        description:
          'compliance entries without attacks_used and total_trials; their trial counts are unknown',
      },
    ],
    partialSnapshots: [SNAPSHOT_ID],
    failedRequests: [
      {
        snapshotId: SNAPSHOT_ID,
        method: 'GET',
        path: '/api/v1/orgs/acme/workspaces/main/assessments/00000000-0000-4000-8000-00000000000d/trials',
        status: 504,
        error: `gateway timeout after 6 attempts ${HOSTILE.table}`,
      },
    ],
    truncatedTrialLists: [
      {
        project,
        assessmentId: assessments[0]?.id ?? '',
        assessmentName: assessments[0]?.name ?? null,
        trialsStored: 500,
        limit: 500,
      },
    ],
    schemaDrift: [
      { fileKind: 'project_summary', keys: ['$.assessments[*].new_metric', `$.${HOSTILE.backticks}`] },
    ],
    consistency: [
      { check: 'summary total_trials equals the sum over assessments', expected: '1,240', actual: '1,180' },
    ],
    // Every cross-check (the view puts the disagreement first although it is listed last here).
    consistencyChecks: [
      ...['total_assessments', 'total_attacks'].map((check) => ({
        project,
        check,
        serviceValue: 4,
        recomputedValue: 4,
        status: 'agrees' as const,
        detail: null,
      })),
      {
        project,
        check: 'overall_asr',
        serviceValue: 0.42,
        recomputedValue: null,
        status: 'not_compared' as const,
        detail: `the recomputation leaves out 1 assessment flagged by analytics warnings: ${HOSTILE.table}`,
      },
      {
        project,
        check: `coverage_pct.${HOSTILE.backticks}`,
        serviceValue: 0.1,
        recomputedValue: 10,
        status: 'disagrees' as const,
        detail: `the service sent coverage_pct as a fraction ${HOSTILE.script}`,
      },
      {
        project,
        check: 'total_findings',
        serviceValue: 3,
        recomputedValue: 9,
        status: 'disagrees' as const,
        detail: null,
      },
    ],
  };
}

/** The executive model of the hostile fixture project. */
export function executiveFixture(): ExecutiveModel {
  const base: Omit<ExecutiveModel, 'summary'> = {
    kind: 'executive',
    project,
    kpis: {
      riskLevel: 'high',
      riskScore: 7.36,
      overallAsr: 0.42,
      overallAsrSuccessful: 21,
      overallAsrAttacks: 50,
      openFindings: 19,
      assessments: 4,
      attacks: 58,
      trials: 1240,
      totalFindings: 23,
      findingsBySeverity: { critical: 2, high: 5, medium: 9, low: 4, info: null },
      firstAssessmentAt: assessments[0]?.date ?? null,
      lastAssessmentAt: assessments[3]?.date ?? null,
    },
    riskTrend: [
      ...assessments.map((assessment, index) => ({
        assessmentId: assessment.id,
        assessmentName: assessment.name,
        date: assessment.date,
        riskScore: [5.2, 8.1, null, 7.36][index] ?? null,
        riskLevel: ['medium', 'critical', null, 'high'][index] ?? null,
        overallAsr: [0.2, 0.55, null, 0.42][index] ?? null,
      })),
    ],
    asrByCategory: {
      rows: [
        {
          category: 'system_prompt_leak',
          asr: 0.8,
          successfulAttacks: 8,
          totalAttacks: 10,
          totalTrials: 200,
        },
        {
          category: `credential_leak ${HOSTILE.table}`,
          asr: 0.5,
          successfulAttacks: 4,
          totalAttacks: 8,
          totalTrials: 160,
        },
        { category: 'tool_misuse', asr: 0.25, successfulAttacks: 2, totalAttacks: 8, totalTrials: 150 },
        { category: 'harmful_content', asr: 0, successfulAttacks: 0, totalAttacks: 6, totalTrials: 120 },
        {
          category: 'pii_extraction',
          asr: null,
          successfulAttacks: null,
          totalAttacks: null,
          totalTrials: null,
        },
      ],
      excludes: [{ field: 'asr_by_category', assessments: [LEGACY_ASSESSMENT.name] }],
    },
    attackEffectiveness: [
      { attack: 'crescendo_attack', timesUsed: 12, successRate: 0.58, avgBestScore: 0.71, totalTrials: 240 },
      { attack: 'tap_attack', timesUsed: 14, successRate: 0.43, avgBestScore: 0.62, totalTrials: 320 },
      {
        attack: `goat_attack ${HOSTILE.rawJsLink}`,
        timesUsed: 10,
        successRate: 0.3,
        avgBestScore: 0.51,
        totalTrials: 200,
      },
      { attack: 'pair_attack', timesUsed: 8, successRate: null, avgBestScore: null, totalTrials: 160 },
    ],
    transformLift: {
      baselineAsr: 0.31,
      rows: [
        { transform: 'base64', lift: 0.14, avgAsr: 0.45, timesUsed: 9 },
        { transform: 'role_play_wrapper', lift: 0.09, avgAsr: 0.4, timesUsed: 11 },
        { transform: `leet_speak ${HOSTILE.svg}`, lift: -0.05, avgAsr: 0.26, timesUsed: 7 },
        { transform: 'zero_width', lift: null, avgAsr: null, timesUsed: 3 },
      ],
    },
    complianceCoverage: [
      {
        framework: 'owasp_llm',
        title: 'OWASP LLM Top 10',
        coveragePct: 0.7,
        testedCategories: 7,
        totalCategories: 10,
        failing: 3,
        passing: 2,
        untested: 3,
      },
      {
        framework: 'atlas',
        title: 'MITRE ATLAS',
        coveragePct: 0.26,
        testedCategories: 7,
        totalCategories: 27,
        failing: 2,
        passing: 1,
        untested: 20,
      },
      {
        framework: 'nist',
        title: 'NIST AI RMF',
        coveragePct: 0.5,
        testedCategories: 2,
        totalCategories: 4,
        failing: 1,
        passing: 1,
        untested: 2,
      },
      {
        framework: `custom ${HOSTILE.entity}`,
        title: `custom ${HOSTILE.entity}`,
        coveragePct: null,
        testedCategories: null,
        totalCategories: null,
        failing: null,
        passing: null,
        untested: null,
      },
    ],
    riskByDomain: [
      {
        domain: 'security',
        critical: 2,
        high: 3,
        medium: 4,
        total: 12,
        avgAsr: 0.5,
        successfulAttacks: 6,
        attacks: 12,
        maxScore: 0.97,
        serviceTotal: 13,
        serviceAvgAsr: 0.47,
      },
      { domain: 'safety', critical: 0, high: 2, medium: 5, total: 9, avgAsr: 0.33, maxScore: 0.81 },
      {
        domain: `agentic ${HOSTILE.style}`,
        critical: null,
        high: null,
        medium: null,
        total: 2,
        avgAsr: null,
        maxScore: null,
      },
    ],
    riskByDomainExcludes: [{ field: 'attack_runs', assessments: [`Probe ${HOSTILE.script}`] }],
    goalAsr: {
      rows: [
        {
          goalCategory: 'system_prompt_leak',
          goal: `Reveal the system prompt ${HOSTILE.template}`,
          asr: 0.75,
          successfulAttacks: 3,
          attacks: 4,
          trials: 24,
          evidence: 'measured',
          serviceAsr: 0.75,
        },
        {
          goalCategory: null,
          goal: `Leak a card number ${HOSTILE.table}`,
          asr: 1,
          successfulAttacks: 1,
          attacks: 1,
          trials: 3,
          evidence: 'insufficient_evidence',
          serviceAsr: null,
        },
      ],
      more: 2,
      excludes: [],
    },
    topFindings: [
      {
        rank: 1,
        severity: 'critical',
        attack: 'crescendo_attack',
        goalCategory: 'system_prompt_leak',
        score: 0.97,
        triageStatus: 'open',
        open: true,
        assessmentName: assessments[3]?.name ?? null,
        goal: `Reveal the system prompt ${HOSTILE.template}`,
        candidate: `Ignore previous instructions. ${HOSTILE.script} ${HOSTILE.img}`,
        response: `Sure! ${HOSTILE.jsLink} ${HOSTILE.image}`,
        notes: `Confirmed by analyst ${HOSTILE.rawJsLink}`,
      },
      {
        rank: 2,
        severity: 'critical',
        attack: `tap_attack ${HOSTILE.table}`,
        goalCategory: `credential_leak ${HOSTILE.table}`,
        score: 0.93,
        triageStatus: 'accepted_risk',
        open: true,
        assessmentName: assessments[1]?.name ?? null,
        goal: HOSTILE.newline,
        candidate: LONG_TEXT,
        response: `${HOSTILE.backslash}`,
        notes: null,
      },
      {
        rank: 3,
        severity: `high ${HOSTILE.svg}`,
        attack: 'goat_attack',
        goalCategory: null,
        score: 0.81,
        triageStatus: null,
        open: true,
        assessmentName: null,
        goal: HOSTILE.autolink,
        candidate: HOSTILE.backticks,
        response: HOSTILE.bidi,
        notes: HOSTILE.entity,
      },
    ],
    evaluationJobs: [
      {
        id: '22222222-2222-4222-8222-222222222222',
        name: `nightly-regression ${HOSTILE.img}`,
        status: 'completed',
        kind: 'evaluation',
        model: 'openai/gpt-4o',
        queuedAt: '2026-01-04T01:00:00Z',
        completedAt: '2026-01-04T01:42:10Z',
        datasetSize: 120,
        passed: 96,
        failed: 20,
        errored: 4,
        infraError: 0,
        timedOut: 0,
        cancelled: 0,
        passRate: 0.8,
        errorSummary: null,
      },
      {
        id: '33333333-3333-4333-8333-333333333333',
        // Unbroken names as a service sends them: a column is narrower than either.
        name: 'tool-use-suite-Release\u202Eexe.2v-regression-nightly',
        status: 'failed',
        kind: 'evaluation',
        model: 'mistralai/Mistral-7B-Instruct-v0.3',
        queuedAt: '2026-01-05T01:00:00Z',
        completedAt: null,
        datasetSize: 40,
        passed: null,
        failed: null,
        errored: 40,
        infraError: null,
        timedOut: null,
        cancelled: null,
        passRate: null,
        errorSummary: `sandbox provider error ${HOSTILE.newline}`,
      },
    ],
    sinceLastSnapshot: sinceLastSnapshotFixture(),
    riskAcceptances: {
      windowDays: 30,
      rows: [
        {
          findingId: '0a1b2c3d-0000-4000-8000-0000000000a1',
          attack: 'crescendo_attack',
          goalCategory: 'system_prompt_leak',
          severity: 'critical',
          owner: `ciso ${HOSTILE.img}`,
          reason: `vendor fix due ${HOSTILE.table} ${HOSTILE.script}`,
          until: '2026-01-03',
          daysLeft: -2,
          state: 'expired',
        },
        {
          findingId: '0a1b2c3d-0000-4000-8000-0000000000a2',
          attack: null,
          goalCategory: null,
          severity: 'high',
          owner: null,
          reason: `compensating control ${HOSTILE.jsLink} ${HOSTILE.backticks}`,
          until: '2026-01-20',
          daysLeft: 14,
          state: 'expiring',
        },
      ],
    },
    dataQuality: dataQuality(),
    provenance: provenance(),
  };
  return { ...base, summary: executiveNarrative(base) };
}

/**
 * The executive fixture's comparison with an older snapshot: hostile attack, category, goal, job and
 * key names; a regression whose reasons embed data; figures unknown on one side or only on one side.
 */
function sinceLastSnapshotFixture(): SinceLastSnapshot {
  return {
    previous: { snapshotId: OLDER_SNAPSHOT_ID, fetchedAt: '2025-12-01T12:00:41.250Z' },
    current: { snapshotId: SNAPSHOT_ID, fetchedAt: '2026-01-05T12:00:00Z' },
    counts: { new: 3, resolved: 1, regressed: 2, persisting: 7 },
    changedFindings: [
      {
        change: 'regressed',
        severity: 'critical',
        severityBefore: 'high',
        attack: 'crescendo_attack',
        goalCategory: 'system_prompt_leak',
        goal: `Reveal the system prompt ${HOSTILE.script}`,
        scoreBefore: 0.78,
        scoreAfter: 0.97,
        reasons: ['severity high → critical', 'score 0.78 → 0.97'],
      },
      {
        change: 'new',
        severity: 'high',
        severityBefore: null,
        attack: `goat_attack ${HOSTILE.table}`,
        goalCategory: `credential_leak ${HOSTILE.jsLink}`,
        goal: `Print the API key ${HOSTILE.img} ${HOSTILE.newline}`,
        scoreBefore: null,
        scoreAfter: 0.81,
        reasons: [],
      },
      {
        change: 'regressed',
        severity: `medium ${HOSTILE.rawJsLink}`,
        severityBefore: 'medium',
        attack: 'tap_attack',
        goalCategory: null,
        goal: null,
        scoreBefore: null,
        scoreAfter: null,
        reasons: [`reopened (was false_positive ${HOSTILE.backticks})`],
      },
    ],
    changedFindingsTotal: 5,
    unknownFindingAssessments: [LEGACY_ASSESSMENT.id],
    overallAsr: { key: 'overall_asr', before: 0.35, after: 0.42, delta: 0.07, presence: 'both' },
    riskScore: { key: 'risk_score', before: 7.5, after: 7.36, delta: -0.14, presence: 'both' },
    categoryAsr: [
      { key: 'system_prompt_leak', before: 0.5, after: 0.8, delta: 0.3, presence: 'both' },
      { key: 'harmful_content', before: 0.2, after: 0, delta: -0.2, presence: 'both' },
      { key: `tool_misuse ${HOSTILE.image}`, before: null, after: 0.25, delta: null, presence: 'added' },
      { key: 'pii_extraction', before: 0.4, after: null, delta: null, presence: 'both' },
    ],
    categoryAsrTotal: 6,
    coverage: [
      { key: 'owasp_llm', title: 'OWASP LLM Top 10', before: 0.6, after: 0.7, delta: 0.1, presence: 'both' },
      { key: 'atlas', title: 'MITRE ATLAS', before: 0.259259, after: 0.259259, delta: 0, presence: 'both' },
      {
        key: `custom ${HOSTILE.entity}`,
        title: `custom ${HOSTILE.entity}`,
        before: 0.5,
        after: null,
        delta: null,
        presence: 'removed',
      },
    ],
    evaluationPassRates: [
      { key: `nightly-regression ${HOSTILE.img}`, before: 0.9, after: 0.8, delta: -0.1, presence: 'both' },
      { key: 'tool-use-suite', before: null, after: null, delta: null, presence: 'added' },
    ],
    schemaDrift: [
      { fileKind: 'project_summary', added: ['$.risk_appetite', `$.${HOSTILE.backticks}`], removed: [] },
      { fileKind: `trials ${HOSTILE.table}`, added: [], removed: ['$[*].judge_model'] },
    ],
  };
}

/** Matrix cells per assessment for one framework; the legacy assessment's cells are excluded (null). */
function frameworkSection(key: string, seed: number): ComplianceFrameworkSection {
  const definition = FRAMEWORKS.find((framework) => framework.key === key);
  if (!definition) throw new Error(`unknown framework ${key}`);
  const cellsByTag = new Map<string, ComplianceCell[]>();
  const heatmapCells: ComplianceFrameworkSection['heatmap']['cells'] = [];
  definition.categories.forEach((category, row) => {
    const cells: ComplianceCell[] = [];
    assessments.forEach((assessment, column) => {
      const pattern = (row * 7 + column * 3 + seed) % 11;
      if (assessment.id === LEGACY_ASSESSMENT.id) {
        heatmapCells.push({ assessmentId: assessment.id, tag: category.tag, asr: null, tested: false });
        return;
      }
      const tested = row < definition.categories.length * 0.7 && pattern !== 0;
      const asr = tested ? (pattern > 6 ? (pattern - 6) / 5 : 0) : null;
      const totalTrials = tested ? (row % 4 === 3 ? 4 : 20 + pattern) : 0;
      cells.push({
        assessmentId: assessment.id,
        tested,
        asr,
        maxSeverity: tested
          ? asr !== null && asr > 0.5
            ? 'critical'
            : asr !== null && asr > 0
              ? 'medium'
              : 'info'
          : null,
        totalTrials: column === 1 ? null : totalTrials,
        attacksUsed:
          column === 1
            ? null
            : tested
              ? column % 2 === 0
                ? ['tap_attack', 'crescendo_attack']
                : [`goat_attack ${HOSTILE.img}`]
              : [],
      });
      heatmapCells.push({
        assessmentId: assessment.id,
        tag: category.tag,
        asr,
        tested,
        trials: column === 1 ? null : totalTrials,
      });
    });
    cellsByTag.set(category.tag, cells);
  });
  const categories = definition.categories.map((category) => {
    const verdict = classifyCategory(cellsByTag.get(category.tag) ?? [], DEFAULT_MIN_TRIALS_FOR_EVIDENCE);
    return { tag: category.tag, title: category.title, ...verdict };
  });
  const tested = categories.filter((row) => row.state !== 'not_tested').length;
  return {
    framework: key,
    title: definition.title,
    testedCategories: tested,
    totalCategories: categories.length,
    coverage: categories.length === 0 ? null : tested / categories.length,
    minTrials: DEFAULT_MIN_TRIALS_FOR_EVIDENCE,
    categories,
    heatmap: {
      assessments: assessments.map((assessment) => ({
        id: assessment.id,
        name: assessment.name,
        date: assessment.date,
      })),
      cells: heatmapCells,
    },
    excludes: [{ field: 'compliance_matrix', assessments: [LEGACY_ASSESSMENT.name] }],
  };
}

/** The compliance model of the fixture project over two frameworks. */
export function complianceFixture(): ComplianceModel {
  const frameworks = [frameworkSection('owasp_llm', 1), frameworkSection('nist', 4)];
  // The service's recommendations are data: hostile text under the first failing category; the
  // other failing categories fall back to the guidance shipped with the tool.
  const failing = frameworks[0]?.categories.find((row) => (row.currentState ?? row.state) === 'failing');
  if (failing === undefined) throw new Error('the fixture needs a failing OWASP LLM category');
  failing.recommendations = [
    {
      assessment: `Latest ${HOSTILE.bidi}`,
      goalCategory: `credential_leak ${HOSTILE.table}`,
      priority: 'high',
      title: `Harden the target ${HOSTILE.script}`,
      detail: `Add input filtering ${HOSTILE.jsLink} ${HOSTILE.image} ${HOSTILE.newline}`,
    },
    {
      assessment: 'Baseline',
      goalCategory: 'system_prompt_leak',
      priority: null,
      title: null,
      detail: `Keep secrets out of the prompt ${HOSTILE.template}`,
    },
    {
      assessment: 'Baseline',
      goalCategory: 'pii_extraction',
      priority: 'medium',
      title: 'Redact',
      detail: null,
    },
    {
      assessment: 'Baseline',
      goalCategory: 'tool_misuse',
      priority: 'medium',
      title: 'Limit tools',
      detail: null,
    },
  ];
  return {
    kind: 'compliance',
    project,
    summary: complianceNarrative(frameworks),
    frameworks,
    dataQuality: dataQuality(),
    provenance: provenance(),
  };
}

/** A portfolio of three projects across two snapshots. */
export function portfolioFixture(): PortfolioModel {
  const other: ProjectRef = { id: null, key: 'rag-search', name: `RAG search ${HOSTILE.jsLink}` };
  const third: ProjectRef = { id: '44444444-4444-4444-8444-444444444444', key: 'agent-ops', name: null };
  const base: Omit<PortfolioModel, 'summary'> = {
    kind: 'portfolio',
    projects: [
      {
        project,
        snapshotId: SNAPSHOT_ID,
        riskLevel: 'high',
        riskScore: 7.36,
        overallAsr: 0.42,
        assessments: 4,
        findingsBySeverity: { critical: 2, high: 5, medium: 9, low: 4, info: null },
        coverage: [
          {
            framework: 'owasp_llm',
            title: 'OWASP LLM Top 10',
            coveragePct: 0.7,
            testedCategories: 7,
            failing: 3,
            insufficientEvidence: 0,
            passing: 4,
            untested: 3,
          },
          {
            framework: 'atlas',
            title: 'MITRE ATLAS',
            coveragePct: 0.26,
            testedCategories: 7,
            failing: 0,
            insufficientEvidence: 2,
            passing: 5,
            untested: 20,
          },
        ],
      },
      {
        project: other,
        snapshotId: SNAPSHOT_ID,
        riskLevel: 'critical',
        riskScore: 8.9,
        overallAsr: 0.61,
        assessments: 7,
        findingsBySeverity: { critical: 6, high: 3, medium: 2, low: 1, info: 0 },
        coverage: [
          {
            framework: 'owasp_llm',
            title: 'OWASP LLM Top 10',
            coveragePct: 0.9,
            testedCategories: 9,
            failing: 0,
            insufficientEvidence: 0,
            passing: 9,
            untested: 1,
          },
          {
            framework: 'atlas',
            title: 'MITRE ATLAS',
            coveragePct: 0,
            testedCategories: 0,
            failing: 0,
            insufficientEvidence: 0,
            passing: 0,
            untested: 27,
          },
        ],
      },
      {
        project: third,
        snapshotId: SNAPSHOT_ID,
        riskLevel: null,
        riskScore: null,
        overallAsr: null,
        assessments: 0,
        findingsBySeverity: { critical: null, high: null, medium: null, low: null, info: null },
        coverage: [],
      },
    ],
    asrTrend: [
      {
        projectKey: 'support-bot',
        projectName: project.name,
        snapshotId: OLDER_SNAPSHOT_ID,
        fetchedAt: '2025-12-01T12:00:00Z',
        overallAsr: 0.35,
        overallAsrAttacks: 40,
      },
      {
        projectKey: 'support-bot',
        projectName: project.name,
        snapshotId: SNAPSHOT_ID,
        fetchedAt: '2026-01-05T12:00:00Z',
        overallAsr: 0.42,
      },
      {
        projectKey: 'rag-search',
        projectName: other.name,
        snapshotId: OLDER_SNAPSHOT_ID,
        fetchedAt: '2025-12-01T12:00:00Z',
        overallAsr: 0.66,
      },
      {
        projectKey: 'rag-search',
        projectName: other.name,
        snapshotId: SNAPSHOT_ID,
        fetchedAt: '2026-01-05T12:00:00Z',
        overallAsr: 0.61,
      },
      {
        projectKey: 'agent-ops',
        projectName: null,
        snapshotId: SNAPSHOT_ID,
        fetchedAt: '2026-01-05T12:00:00Z',
        overallAsr: null,
      },
    ],
    dataQuality: {
      ...dataQuality(),
      consistencyChecks: [
        ...(dataQuality().consistencyChecks ?? []),
        {
          project: other,
          check: 'total_attacks',
          serviceValue: 30,
          recomputedValue: 30,
          status: 'agrees',
          detail: null,
        },
      ],
      // Two projects each with an assessment of the same name: only the project tells the rows apart.
      analyticsWarnings: [
        {
          project: other,
          assessmentId: '00000000-0000-4000-8000-0000000000e1',
          assessmentName: 'Weekly sweep',
          field: 'asr_by_category',
          reason: 'stored in legacy format',
          excluded: 'its ASR by goal category (left out of the category ASR table and chart)',
        },
      ],
      legacyData: [project, other].map((owner, index) => ({
        project: owner,
        assessmentId: `00000000-0000-4000-8000-0000000000f${index}`,
        assessmentName: 'Weekly sweep',
        description: '3 compliance-matrix entries in the older format (no attacks_used or total_trials)',
      })),
    },
    provenance: {
      toolVersion: '0.1.0',
      snapshots: [
        {
          ...provenance().snapshots[0]!,
          snapshotId: OLDER_SNAPSHOT_ID,
          status: 'complete',
          fetchedAt: '2025-12-01T12:00:00Z',
          rootSha256: null,
        },
        ...provenance().snapshots,
      ],
    },
  };
  return { ...base, summary: portfolioNarrative(base) };
}
