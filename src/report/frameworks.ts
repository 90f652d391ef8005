/**
 * The framework taxonomy now lives in the leaf module src/taxonomy/frameworks.ts (the warehouse reads
 * it too); re-exported here so report-side imports and tests written against this path keep working.
 */
export {
  categoryLabel,
  categoryTitle,
  compareFrameworkKeys,
  findFramework,
  FRAMEWORKS,
  frameworkTitle,
  type FrameworkCategory,
  type FrameworkDefinition,
} from '../taxonomy/frameworks.js';
