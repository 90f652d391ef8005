import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/taxonomy/frameworks.js';
import { remediationFor } from '../../src/taxonomy/remediation.js';

/** The frameworks' own sites: guidance links nowhere else. */
const OFFICIAL_HOSTS = new Set(['genai.owasp.org', 'atlas.mitre.org', 'www.nist.gov', 'saif.google']);

describe('remediation guidance shipped with the tool', () => {
  it('covers every category of every framework, linking only to the framework itself', () => {
    for (const framework of FRAMEWORKS) {
      for (const category of framework.categories) {
        const remediation = remediationFor(framework.key, category.tag);
        expect(remediation, `${framework.key} ${category.tag}`).not.toBeNull();
        const url = new URL(remediation?.url ?? '');
        expect(url.protocol).toBe('https:');
        expect(OFFICIAL_HOSTS.has(url.host), url.href).toBe(true);
        expect(remediation?.guidance.length).toBeLessThan(240);
      }
    }
  });

  it('links an ATLAS technique to its own page and knows nothing of unknown tags', () => {
    expect(remediationFor('atlas', 'AML.T0054')?.url).toBe('https://atlas.mitre.org/techniques/AML.T0054');
    expect(remediationFor('atlas', 'AML.T0054/../x')).toBeNull();
    expect(remediationFor('owasp_llm', 'LLM11:2025')).toBeNull();
    expect(remediationFor('custom', 'x')).toBeNull();
  });
});
