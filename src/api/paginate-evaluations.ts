/**
 * Walks every page of the evaluation job list. Offset pagination over a list that changes while we
 * read it can repeat items (a job inserted ahead of the cursor pushes one we saw onto the next page)
 * and `total` can move; both are reported, not hidden. The loop is bounded whatever the service says:
 * at most ceil(total / page_size) + 10 pages, with total and page_size as the first page reported them
 * (a total that keeps growing cannot extend it; never more than 100,000), and it stops early on an empty page or after three
 * pages in a row that bring no new job.
 */
import type { Parsed } from './client-types.js';
import { EVALUATION_PAGE_BOUNDS, type EvaluationJob, type EvaluationJobList } from './schemas.js';

/** Page size used for full listings: the spec's maximum. */
const FULL_LISTING_PAGE_SIZE = EVALUATION_PAGE_BOUNDS.page_size.max;
/** Pages beyond ceil(total / page_size) we are willing to read before concluding the service is wrong. */
const EXTRA_PAGES = 10;
/** Absolute ceiling, whatever total and page_size say: 10 million jobs at 100 a page. */
const MAX_PAGES = 100_000;
/** Consecutive pages with no new id after which we stop (a service repeating the same page). */
const STALLED_PAGE_LIMIT = 3;

/** Why a full listing stopped. Anything but `total_reached` and `empty_page` means it may be incomplete. */
export type ListingStopReason = 'total_reached' | 'empty_page' | 'page_cap' | 'no_new_items';

/** Every evaluation job of a workspace, page by page, with why the listing stopped. */
export interface AllEvaluations {
  /** Jobs in the order first seen, one per id. */
  items: EvaluationJob[];
  /** Pages requested. */
  pages: number;
  /** Ids that appeared more than once (sorted, each listed once). */
  duplicateIds: string[];
  /** Every change of `total` between consecutive pages. */
  totalChanges: { page: number; from: number; to: number }[];
  /** Union of the pages' unknown keys (sorted). */
  unknownKeys: string[];
  /** `total` as reported by the last page. */
  total: number;
  stoppedBecause: ListingStopReason;
  /** False when the listing stopped for a reason that may have left jobs out, or found fewer than `total`. */
  complete: boolean;
}

/** Reads pages 1, 2, … through `fetchPage` (page size FULL_LISTING_PAGE_SIZE) until the listing is done. */
export async function collectAllEvaluations(
  fetchPage: (page: number, pageSize: number) => Promise<Parsed<EvaluationJobList>>,
): Promise<AllEvaluations> {
  const byId = new Map<string, EvaluationJob>();
  const duplicates = new Set<string>();
  const unknownKeys = new Set<string>();
  const totalChanges: AllEvaluations['totalChanges'] = [];
  let lastTotal: number | undefined;
  let pageCap: number | undefined;
  let stalled = 0;
  let pages = 0;
  let pageSize: number = FULL_LISTING_PAGE_SIZE;
  let stoppedBecause: ListingStopReason = 'page_cap';

  for (let page = 1; pageCap === undefined || page <= pageCap; page++) {
    const { value, unknownKeys: pageUnknown } = await fetchPage(page, FULL_LISTING_PAGE_SIZE);
    pages = page;
    for (const key of pageUnknown) unknownKeys.add(key);
    if (lastTotal !== undefined && value.total !== lastTotal) {
      totalChanges.push({ page, from: lastTotal, to: value.total });
    }
    lastTotal = value.total;

    if (value.items.length === 0) {
      stoppedBecause = 'empty_page';
      break;
    }
    let fresh = 0;
    for (const job of value.items) {
      if (byId.has(job.id)) duplicates.add(job.id);
      else {
        byId.set(job.id, job);
        fresh++;
      }
    }
    stalled = fresh === 0 ? stalled + 1 : 0;
    // The service's page_size is authoritative for where this page ends (it may cap ours).
    if (value.page_size > 0) pageSize = Math.min(value.page_size, FULL_LISTING_PAGE_SIZE);
    pageCap ??= Math.min(MAX_PAGES, Math.ceil(Math.max(0, value.total) / pageSize) + EXTRA_PAGES);
    if (page * pageSize >= value.total) {
      stoppedBecause = 'total_reached';
      break;
    }
    if (stalled >= STALLED_PAGE_LIMIT) {
      stoppedBecause = 'no_new_items';
      break;
    }
  }

  const total = lastTotal ?? 0;
  const items = [...byId.values()];
  const complete =
    (stoppedBecause === 'total_reached' || stoppedBecause === 'empty_page') && items.length >= total;
  return {
    items,
    pages,
    duplicateIds: [...duplicates].sort(),
    totalChanges,
    unknownKeys: [...unknownKeys].sort(),
    total,
    stoppedBecause,
    complete,
  };
}
