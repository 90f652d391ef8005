/**
 * Deterministic UUIDs for OSCAL documents (RFC 4122 version 5: SHA-1 of a namespace and a name), so
 * the same snapshot gives the same document, and an object (a finding, an observation) keeps its UUID
 * across exports as OSCAL asks ("assigned per-subject ... consistently used to identify the same
 * subject across revisions"). The names are stable ids (snapshot id, attack run id, framework/tag).
 */
import { createHash } from 'node:crypto';

/** uuid5(URL namespace, "https://airt-report/oscal"): the namespace of every airt-report OSCAL UUID. */
const AIRT_OSCAL_NAMESPACE = Buffer.from('726df75dd8005208b57174578f26f63f', 'hex');

/** The version-5 UUID of `name` in airt-report's OSCAL namespace. */
export function oscalUuid(...name: string[]): string {
  const hash = createHash('sha1').update(AIRT_OSCAL_NAMESPACE).update(JSON.stringify(name)).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
