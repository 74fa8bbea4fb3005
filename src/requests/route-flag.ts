import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * A value set on a route or its controller (`@RequiresOperation(…)`), read through the
 * Reflector once per route: decorators never change once the app has started, and guards ask
 * on every request.
 */
export function routeMetadata<T>(
  reflector: Reflector,
  key: string,
): (context: ExecutionContext) => T | undefined {
  // null: asked, and none set.
  const byController = new Map<object, Map<object, T | null>>();
  return (context) => {
    const [handler, controller] = [context.getHandler(), context.getClass()];
    let routes = byController.get(controller);
    if (!routes) byController.set(controller, (routes = new Map()));
    let value = routes.get(handler);
    if (value === undefined) {
      value = reflector.getAllAndOverride<T | undefined>(key, [handler, controller]) ?? null;
      routes.set(handler, value);
    }
    return value ?? undefined;
  };
}

/** A boolean marker set on a route or its controller (`@Public()`, `@SkipThrottle()`). */
export function routeFlag(
  reflector: Reflector,
  key: string,
): (context: ExecutionContext) => boolean {
  const valueOf = routeMetadata<boolean>(reflector, key);
  return (context) => valueOf(context) === true;
}
