/** A command line the key CLI cannot run: its message, then the usage. */
export class UsageError extends Error {}
