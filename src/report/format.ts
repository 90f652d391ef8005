// Number and date formatting lives in the leaf module src/number-format.ts (the diff and the gate
// report use it too); re-exported here for the report's own modules.
export * from '../number-format.js';
