/** The viewer's /compare page of two snapshots, or with `download` one of its tables as CSV. */
import type { RunningViewer } from '../../src/viewer/server.js';

export interface FetchedPage {
  status: number;
  csp: string | null;
  body: string;
}

export async function comparePage(
  viewer: RunningViewer,
  from: string,
  to: string,
  download?: string,
): Promise<FetchedPage> {
  const query = new URLSearchParams({ from, to, ...(download === undefined ? {} : { download }) });
  const response = await fetch(`${viewer.url}compare?${query.toString()}`);
  return {
    status: response.status,
    csp: response.headers.get('content-security-policy'),
    body: await response.text(),
  };
}
