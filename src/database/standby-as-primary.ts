/**
 * A standby's sessions do not show the primary's open writes, so a change feed's safe point read
 * there could pass a write still to commit (and it cannot record a key's last use).
 */
export const STANDBY_AS_PRIMARY =
  'DATABASE_URL reaches a standby (in recovery): point it at the primary, and list standbys in DATABASE_REPLICA_URLS';
