import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Operation } from '../api-keys/key-scope';
import { routeMetadata } from '../requests/route-flag';

const REQUIRES_OPERATION = 'requiresOperation';

/** The operation a controller's routes are (docs/api.md, "Scoped keys"): a key needs its scope. */
export const RequiresOperation = (operation: Operation) =>
  SetMetadata(REQUIRES_OPERATION, operation);

/** The operation a route requires, if any (read once per route). */
export const requiredOperation = (reflector: Reflector) =>
  routeMetadata<Operation>(reflector, REQUIRES_OPERATION);
