/** The viewer's pages by path. */
import { comparePage } from './pages/compare.js';
import { findingPage } from './pages/finding.js';
import { findingsPage } from './pages/findings.js';
import { frameworkPage } from './pages/framework.js';
import { overviewPage } from './pages/overview.js';
import type { PageContext, PageResult } from './pages/page.js';
import { queryPage } from './pages/query.js';
import { reportPage } from './pages/report.js';

type Page = (context: PageContext) => Promise<PageResult>;

const ROUTES: ReadonlyMap<string, Page> = new Map([
  ['/', overviewPage],
  ['/findings', findingsPage],
  ['/finding', findingPage],
  ['/framework', frameworkPage],
  ['/compare', comparePage],
  ['/query', queryPage],
]);

/** The page at `pathname`, or undefined (404). Reports are under /report/<kind>. */
export function route(pathname: string): Page | undefined {
  if (pathname.startsWith('/report/')) return reportPage;
  return ROUTES.get(pathname);
}
