import type { EmbeddedDatabase } from '../../src/dev/embedded-database';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { embeddedDatabase?: EmbeddedDatabase }).embeddedDatabase?.stop();
}
