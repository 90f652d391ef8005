/**
 * A run whose snapshot got nothing from the service: how to tell (files copied from the triage
 * journal do not count) and the one message that says so, naming the first failed request.
 */
import { reachabilityAdvice } from '../api/errors.js';
import { describedOptionName, libraryOptionName } from '../errors.js';
import type { Manifest } from '../snapshot/manifest.js';

/**
 * True when at least one file of the snapshot came from the service. Finding files copied from the
 * triage journal carry no request, so a snapshot of an unreachable service with a journal configured
 * still counts as having fetched nothing.
 */
export function fetchedFromService(manifest: Manifest): boolean {
  return manifest.files.some((file) => file.request !== null);
}

/**
 * Why a snapshot with no data from the service fails the run: "partial" would let a dead service
 * pass as exit 3 (or 4, its gates "unknown (no data)") and load a near-empty snapshot that the next
 * run would then call every finding "new" against. The first failed request names the cause (e.g.
 * ECONNREFUSED).
 */
export function nothingFetched(snapshot: { dir: string; manifest: Manifest }): string {
  const { failed_requests: failed, base_url: baseUrl, files } = snapshot.manifest;
  const first = failed[0];
  const cause =
    first === undefined
      ? 'the service returned no data'
      : `${failed.length} request(s) failed, the first: ${withoutOwnAdvice(first.error)}`;
  const copied =
    files.length > 0 ? ` (it holds only the ${files.length} file(s) copied from the triage journal)` : '';
  // No response at all (refused, DNS, timeout) is "unreachable"; error statuses only are not.
  const headline =
    first !== undefined && first.status !== null ? 'The service sent no data' : 'Could not reach the service';
  return (
    `${headline}: nothing was fetched from ${baseUrl} (${cause}). The snapshot ` +
    `${snapshot.dir}${copied} is not loaded and never used as a baseline. Check connection.base_url and ` +
    'that the service is reachable, then run again.'
  );
}

/**
 * A failed request's text as the run quotes it: without the advice to check the base URL, which the
 * run gives itself in its own words (`connection.base_url`), and without its final full stop. The
 * manifest words that advice plainly ("the service's base URL"); manifests written before it did used
 * the library's `options.baseUrl`, which a run must not show either.
 */
function withoutOwnAdvice(error: string): string {
  let text = error;
  for (const name of [describedOptionName, libraryOptionName]) {
    text = text.replace(reachabilityAdvice(name), '');
  }
  return text.trimEnd().replace(/\.$/u, '');
}
