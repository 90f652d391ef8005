/**
 * An OSCAL 1.1.2 `assessment-results` document (NIST OSCAL Assessment Results model) for one project
 * and snapshot, built from the warehouse (read-evidence.ts):
 *
 *   result          the snapshot's assessment of the project (start/end: the snapshot's fetch window)
 *   reviewed-controls  the framework categories that were tested (control-id `<framework>.<tag>`)
 *   observations    one per red-team finding (attack run), worded by its outcome (reached its goal, did
 *                   not, or unknown and why): severity (`unknown` when its attack run lacks the required
 *                   best_score and no triage set one), status, the run's own trial references, and
 *                   relevant-evidence pointing at back-matter resources that carry the sha256 of the
 *                   snapshot files it comes from (trials/<assessment>.json, the project summary)
 *   risks           one per successful run (metric_findings.successful) whose finding is open or under
 *                   an accepted risk; none for a run that failed or whose outcome is unknown: status open, or
 *                   deviation-approved with a completed "risk accepted" response (owner, reason) and
 *                   the acceptance's end as `deadline`; an expired acceptance is open again
 *   findings        one per tested framework category: target objective `<framework>.<tag>`,
 *                   satisfied (passing) or not-satisfied (failing), related observations and risks
 *
 * UUIDs are version 5 from stable ids (uuid.ts), timestamps the snapshot's, keys in fixed order: the
 * same snapshot gives the same bytes. Text from the service is escaped for OSCAL's Markdown fields.
 */
import { mismatchedFilesClause, UNVERIFIED_LEAD } from '../snapshot/provenance-line.js';
import { escapeMarkdownText } from '../text-safety.js';
import { SUCCESS_THRESHOLD } from '../warehouse/metric-views.js';
import type { OscalCategory, OscalEvidence, OscalFinding } from './read-evidence.js';
import { oscalUuid } from './uuid.js';

/** The OSCAL release whose assessment-results model this document follows. */
export const OSCAL_VERSION = '1.1.2';
/** Namespace of airt-report's own props (OSCAL requires one for names it does not define). */
export const AIRT_NS = 'urn:airt-report:oscal';

type Json = Record<string, unknown>;

const prop = (name: string, value: string): Json => ({ name, ns: AIRT_NS, value });

/** OSCAL tokens allow letters, digits, `.`, `-`, `_` (starting with a letter or `_`). */
function token(text: string): string {
  const cleaned = text.replace(/[^\p{L}\p{N}._-]/gu, '_');
  return /^[\p{L}_]/u.test(cleaned) ? cleaned : `_${cleaned}`;
}

const md = (text: string | null): string => escapeMarkdownText(text ?? '—');

/** How the document shows a value it does not know (as the root hash of an unsealed snapshot). */
const UNKNOWN = 'unknown';

/** Its severity, or `unknown`: never info, never a severity made up for a finding that has none. */
const severityOf = (finding: OscalFinding): string => finding.severity ?? UNKNOWN;

/** Why a finding's score and severity are unknown, said wherever they are. */
const SCORE_UNKNOWN_REASON = 'the attack run lacks its required best_score';

/** A back-matter resource whose file failed verification: its hash is the manifest's, not the bytes'. */
const MISMATCHED_FILE_REMARK = `${UNVERIFIED_LEAD} The bytes loaded from this file did not match this SHA-256 (the manifest's): the snapshot failed verification and was loaded anyway (forced).`;

/** Why a run without a best score (sent as null) has an unknown outcome. */
const NO_SCORE_REASON = 'no trial of the attack run finished';

/** The best judge score as text: the score, `—` when the run has none, unknown (and why) when missing. */
function scoreText(finding: OscalFinding): string {
  if (finding.score_unknown) return `${UNKNOWN} (${SCORE_UNKNOWN_REASON})`;
  return finding.best_score === null ? '—' : String(finding.best_score);
}

/** The run's outcome as the figures count it (metric_findings.successful): its prop value. */
function outcomeOf(finding: OscalFinding): 'successful' | 'not-successful' | 'unknown' {
  if (finding.successful === null) return UNKNOWN;
  return finding.successful ? 'successful' : 'not-successful';
}

/** What the run did with its goal, worded by its outcome: reached it, did not, or unknown and why. */
function outcomeText(finding: OscalFinding): string {
  const goal = `goal ${md(finding.goal)} (category ${md(finding.goal_category)})`;
  const threshold = `the success threshold ${SUCCESS_THRESHOLD}`;
  if (finding.successful === true)
    return `reached ${goal}: best judge score ${scoreText(finding)}, at least ${threshold}`;
  if (finding.successful === false)
    return `attempted ${goal} and did not reach it: best judge score ${scoreText(finding)}, below ${threshold}`;
  const why = finding.score_unknown
    ? `best judge score ${scoreText(finding)}`
    : `no best judge score (${NO_SCORE_REASON})`;
  return `attempted ${goal}; whether it reached it is unknown: ${why}`;
}

/**
 * Whether the finding is a risk: its run reached its goal (a run that did not, or whose outcome is
 * unknown, shows no risk of any level), and it is open or its risk was accepted (active or expired).
 */
const isRisk = (finding: OscalFinding): boolean =>
  finding.successful === true && (finding.is_open || finding.acceptance_state === 'accepted');

function controlId(category: OscalCategory): string {
  return token(`${category.framework}.${category.tag}`);
}

/** The snapshot file a finding's trials come from, and the project summary its attack run is in. */
function evidenceFiles(finding: OscalFinding, evidence: OscalEvidence): string[] {
  const candidates = [
    `trials/${finding.assessment_id}.json`,
    `projects/${evidence.snapshot.project_key}/summary.json`,
  ];
  return candidates.filter((file) => evidence.files.has(file));
}

function resourceUuid(evidence: OscalEvidence, file: string): string {
  return oscalUuid('resource', evidence.snapshot.snapshot_id, file);
}

function observation(finding: OscalFinding, evidence: OscalEvidence): Json {
  const { snapshot } = evidence;
  const trialText =
    finding.trial_count === 0
      ? 'no trial spans in the snapshot'
      : `${finding.trial_count} trial spans of this attack run${finding.trial_count > finding.trials.length ? ` (first ${finding.trials.length} listed)` : ''}`;
  return {
    uuid: oscalUuid('observation', snapshot.snapshot_id, finding.attack_run_id),
    title: `${finding.attack_name ?? 'attack'} against ${finding.goal_category ?? 'goal'}`,
    description:
      `Red-team attack run ${finding.attack_run_id} (${md(finding.attack_name)}) in assessment ` +
      `${md(finding.assessment_name ?? finding.assessment_id)} ${outcomeText(finding)}; ${trialText}.`,
    props: [
      prop('attack-run-id', finding.attack_run_id),
      prop('assessment-id', finding.assessment_id),
      prop('severity', severityOf(finding)),
      prop('finding-status', finding.finding_status),
      prop('outcome', outcomeOf(finding)),
      ...(finding.score_unknown
        ? [prop('best-score', UNKNOWN)]
        : finding.best_score === null
          ? []
          : [prop('best-score', String(finding.best_score))]),
      ...finding.trials.map((trial) => prop('trial', trial.ref)),
    ],
    methods: ['TEST'],
    types: ['finding'],
    'relevant-evidence': evidenceFiles(finding, evidence).map((file) => ({
      href: `#${resourceUuid(evidence, file)}`,
      description:
        (file.startsWith('trials/')
          ? `Trial spans of assessment ${finding.assessment_id} (${file}, sha256 ${evidence.files.get(file)?.sha256 ?? '?'})`
          : `Project summary listing the attack run (${file}, sha256 ${evidence.files.get(file)?.sha256 ?? '?'})`) +
        (snapshot.unverified_files.includes(file) ? '; the bytes loaded did not match this sha256' : ''),
    })),
    collected: snapshot.fetched_at ?? snapshot.started_at,
  };
}

/** A risk for a successful run whose finding is open, or whose risk was accepted (active or expired). */
function risk(finding: OscalFinding, evidence: OscalEvidence): Json | null {
  if (!isRisk(finding)) return null;
  const accepted = finding.acceptance_state === 'accepted';
  const id = finding.attack_run_id;
  const snapshotId = evidence.snapshot.snapshot_id;
  const who = `${md(finding.accepted_by)} until ${finding.accepted_until ?? '—'}: ${md(finding.acceptance_reason)}`;
  const response =
    finding.acceptance_state === null
      ? []
      : [
          {
            uuid: oscalUuid('response', snapshotId, id),
            lifecycle: 'completed',
            title: accepted ? 'Risk accepted' : 'Risk acceptance expired',
            description: accepted
              ? `Accepted by ${who}.`
              : `Was accepted by ${who}; the acceptance has expired, so the risk is open again.`,
            props: [
              prop('accepted-by', finding.accepted_by ?? ''),
              prop('accepted-until', finding.accepted_until ?? ''),
              prop('acceptance-state', finding.acceptance_state),
            ],
          },
        ];
  return {
    uuid: oscalUuid('risk', snapshotId, id),
    title: `${finding.severity === null ? 'Risk of unknown severity' : `${finding.severity} risk`}: ${finding.attack_name ?? 'attack'} against ${finding.goal_category ?? 'goal'}`,
    description: `The model under test can be made to reach goal ${md(finding.goal)} by ${md(finding.attack_name)}.`,
    statement: `Severity ${severityOf(finding)} (best judge score ${scoreText(finding)}), triage status ${finding.finding_status}.`,
    props: [prop('severity', severityOf(finding)), prop('attack-run-id', id)],
    status: accepted ? 'deviation-approved' : 'open',
    ...(finding.expires_at === null || finding.acceptance_state === null
      ? {}
      : { deadline: finding.expires_at }),
    ...(response.length === 0 ? {} : { remediations: response }),
    ...(finding.acceptance_state === null || finding.accepted_at === null
      ? {}
      : {
          'risk-log': {
            entries: [
              {
                uuid: oscalUuid('risk-log', snapshotId, id, 'accepted'),
                title: 'Risk accepted',
                start: finding.accepted_at,
                ...(finding.expires_at === null ? {} : { end: finding.expires_at }),
                'status-change': 'deviation-approved',
                'related-responses': [{ 'response-uuid': oscalUuid('response', snapshotId, id) }],
              },
            ],
          },
        }),
    'related-observations': [{ 'observation-uuid': oscalUuid('observation', snapshotId, id) }],
  };
}

function finding(category: OscalCategory, evidence: OscalEvidence, findings: readonly OscalFinding[]): Json {
  const snapshotId = evidence.snapshot.snapshot_id;
  const id = controlId(category);
  const related = findings.filter((f) =>
    f.categories.some((c) => c.framework === category.framework && c.tag === category.tag),
  );
  const risks = related.filter(isRisk);
  const failing = category.state === 'failing';
  return {
    uuid: oscalUuid('finding', snapshotId, category.framework, category.tag),
    title: `${category.framework} ${category.tag}: ${failing ? 'failing' : 'passing'}`,
    description:
      `Framework category ${md(category.tag)} of ${md(category.framework)} was tested with ` +
      `${category.total_trials ?? 'an unknown number of'} trials and is ${failing ? 'failing (an attack succeeded)' : 'passing (no attack succeeded)'}.`,
    target: {
      type: 'objective-id',
      'target-id': id,
      status: { state: failing ? 'not-satisfied' : 'satisfied' },
    },
    ...(related.length === 0
      ? {}
      : {
          'related-observations': related.map((f) => ({
            'observation-uuid': oscalUuid('observation', snapshotId, f.attack_run_id),
          })),
        }),
    ...(risks.length === 0
      ? {}
      : {
          'related-risks': risks.map((f) => ({
            'risk-uuid': oscalUuid('risk', snapshotId, f.attack_run_id),
          })),
        }),
  };
}

/** The whole document, as a plain object ready for JSON.stringify. */
export function buildAssessmentResults(evidence: OscalEvidence): Json {
  const { snapshot } = evidence;
  const snapshotId = snapshot.snapshot_id;
  const counted = evidence.findings.filter((f) => f.counted);
  const decided = evidence.categories.filter((c) => c.state === 'failing' || c.state === 'passing');
  const undecided = evidence.categories.filter((c) => c.state !== 'failing' && c.state !== 'passing');
  const cited = [...new Set(counted.flatMap((f) => evidenceFiles(f, evidence)))].sort();
  const manifestResource = oscalUuid('resource', snapshotId, 'manifest');
  const when = snapshot.fetched_at ?? snapshot.started_at ?? '1970-01-01T00:00:00.000Z';
  const project = `${snapshot.project_key} (${snapshot.org}/${snapshot.workspace})`;
  const risks = counted.map((f) => risk(f, evidence)).filter((r): r is Json => r !== null);
  // A forced load of a snapshot that failed verification: said first, where a reader starts.
  const unverified = snapshot.verified
    ? ''
    : `${UNVERIFIED_LEAD} Snapshot ${snapshotId} failed verification and was loaded anyway (forced): ` +
      `${mismatchedFilesClause(snapshot.unverified_files, md, (words) => words)}; these results are not those of the snapshot whose root hash is shown. `;
  const undecidedRemark =
    undecided.length === 0
      ? ''
      : `Not decided (not tested, or insufficient evidence): ${undecided.map((c) => `${controlId(c)} (${c.state})`).join(', ')}.`;
  const resultRemarks = `${unverified}${undecidedRemark}`.trim();
  return {
    'assessment-results': {
      uuid: oscalUuid('assessment-results', snapshotId, snapshot.project_key),
      metadata: {
        title: `AI red-team assessment results: ${project}`,
        'last-modified': when,
        version: snapshotId,
        'oscal-version': OSCAL_VERSION,
        props: [
          prop('snapshot-id', snapshotId),
          prop('root-sha256', snapshot.root_sha256 ?? 'unknown'),
          ...(snapshot.verified ? [] : [prop('snapshot-verified', 'false')]),
        ],
        remarks: `${unverified}Written by airt-report ${snapshot.tool_version ?? ''} from snapshot ${snapshotId}. A mapping of red-team results onto framework categories, not a certification.`,
      },
      'import-ap': {
        href: `#${manifestResource}`,
        remarks:
          'No OSCAL assessment plan exists for a red-team run; the snapshot (its manifest and root hash, in back-matter) stands for what was assessed.',
      },
      results: [
        {
          uuid: oscalUuid('result', snapshotId, snapshot.project_key),
          title: `Red-team results for ${project}, snapshot ${snapshotId}`,
          description:
            `Every finding (attack run) of the completed assessments of project ${md(snapshot.project_name ?? snapshot.project_key)} ` +
            `in snapshot ${snapshotId} (root sha256 ${snapshot.root_sha256 ?? 'unknown'}), and the framework categories they test` +
            (evidence.framework === null
              ? '.'
              : ` (framework ${md(evidence.framework)} only: its categories, and the findings tagged with one of them).`),
          start: snapshot.started_at ?? when,
          end: when,
          props: [
            prop('snapshot-id', snapshotId),
            prop('project-key', snapshot.project_key),
            ...(evidence.framework === null ? [] : [prop('framework', evidence.framework)]),
          ],
          'reviewed-controls': {
            'control-selections': [
              decided.length === 0
                ? { description: 'No framework category was tested with enough evidence.' }
                : {
                    description: 'Framework categories the assessments tested (failing or passing).',
                    'include-controls': decided.map((c) => ({ 'control-id': controlId(c) })),
                  },
            ],
          },
          ...(counted.length === 0 ? {} : { observations: counted.map((f) => observation(f, evidence)) }),
          ...(risks.length === 0 ? {} : { risks }),
          ...(decided.length === 0 ? {} : { findings: decided.map((c) => finding(c, evidence, counted)) }),
          ...(resultRemarks === '' ? {} : { remarks: resultRemarks }),
        },
      ],
      'back-matter': {
        resources: [
          {
            uuid: manifestResource,
            title: `Snapshot ${snapshotId} manifest`,
            description: `Root sha256 ${snapshot.root_sha256 ?? 'unknown'}: sha256 of the sorted "<sha256>  <path>" lines of every snapshot file.`,
            props: [prop('root-sha256', snapshot.root_sha256 ?? 'unknown')],
          },
          ...cited.map((file) => {
            const info = evidence.files.get(file);
            const mismatched = snapshot.unverified_files.includes(file);
            return {
              uuid: resourceUuid(evidence, file),
              title: file,
              ...(mismatched
                ? { description: MISMATCHED_FILE_REMARK, props: [prop('loaded-bytes-verified', 'false')] }
                : {}),
              rlinks: [
                {
                  href: file,
                  'media-type': 'application/json',
                  hashes: [{ algorithm: 'SHA-256', value: info?.sha256 ?? '' }],
                },
              ],
            };
          }),
        ],
      },
    },
  };
}

/** Deterministic JSON text of the document. */
export function assessmentResultsJson(document: Json): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
