/** What a managed key may be limited to (docs/api.md, "Scoped keys"): operations, by name. */
export const OPERATIONS = ['links:read', 'clients:read', 'changes:read'] as const;
export type Operation = (typeof OPERATIONS)[number];

export const isOperation = (name: string): name is Operation =>
  (OPERATIONS as readonly string[]).includes(name);
