import { EXAMPLE_CURSOR_SECRET } from '../config/weak-secrets';
import { Position } from '../database/list-order';
import { CursorCodec } from './signed-cursor';

// The documentation's example cursors are real cursors of the position and scope each shows
// (tested), signed with a published secret: a deployment signs with its own CURSOR_SECRET (the
// production start refuses this one), so they never verify there.

const examples = new CursorCodec({ current: EXAMPLE_CURSOR_SECRET });

export const exampleCursor = (position: Position, scope: string): string =>
  examples.encode(position, scope);
