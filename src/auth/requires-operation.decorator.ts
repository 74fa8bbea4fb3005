import { ExecutionContext, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Operation } from '../api-keys/key-scope';

const REQUIRES_OPERATION = 'requiresOperation';

/** The operation a controller's routes are (docs/api.md, "Scoped keys"): a key needs its scope. */
export const RequiresOperation = (operation: Operation) =>
  SetMetadata(REQUIRES_OPERATION, operation);

/**
 * The operation a route requires, read through the Reflector once per route (decorators never
 * change once the app has started; the guard asks on every request).
 */
export function requiredOperation(
  reflector: Reflector,
): (context: ExecutionContext) => Operation | undefined {
  const byHandler = new Map<object, Operation | null>();
  return (context) => {
    const handler = context.getHandler();
    let operation = byHandler.get(handler);
    if (operation === undefined) {
      operation =
        reflector.getAllAndOverride<Operation>(REQUIRES_OPERATION, [handler, context.getClass()]) ??
        null;
      byHandler.set(handler, operation);
    }
    return operation ?? undefined;
  };
}
