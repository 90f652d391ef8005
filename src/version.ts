/** The tool's version, recorded in every manifest and report footer (kept in step with package.json). */
export const VERSION = '0.1.0';
/** The snapshot directory format this version writes and reads. */
export const SNAPSHOT_FORMAT = 'airt-snapshot/1';
