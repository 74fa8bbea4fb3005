import { Position } from '../database/list-order';
import { CursorCodec } from './signed-cursor';

/**
 * The secret the documentation's example cursors are signed with, so that each is a real
 * cursor of the position and scope it shows (tested). A deployment signs with its own
 * CURSOR_SECRET: these never verify there.
 */
export const EXAMPLE_CURSOR_SECRET = 'example-cursor-secret-for-the-documentation-only';

const examples = new CursorCodec({ current: EXAMPLE_CURSOR_SECRET });

export const exampleCursor = (position: Position, scope: string): string =>
  examples.encode(position, scope);
