export { Ledger, type LedgerOpenOptions } from './ledger.js';
export { createLedgerService } from './service.js';
export { resolveLedgerPath, type LedgerPathOptions } from './path.js';
export { openLedgerDatabase, explainOpenFailure, type LedgerDatabase, type OpenDatabaseOptions } from './open.js';
export { LEDGER_MIGRATIONS, LEDGER_SCHEMA_VERSION, type LedgerMigration } from './migrations.js';
export type { LedgerSchema } from './schema.js';
export {
  visibleEntries,
  visibleIds,
  visibleIdsFromSeqs,
  renderLayout,
  strongestRole,
  outlineOf,
  ROLES,
  PRESERVE_ROLES,
  ROLE_CODE,
  type LedgerState,
  type LedgerOutline,
  type LayoutSegment,
} from './state.js';
export { renderText, renderWithRoles, renderModelItems, renderBlock } from './render.js';
export { validateCompaction, type ResolvedRange } from './validate.js';
export { messageId, compactionId, generateSessionId } from './ids.js';
