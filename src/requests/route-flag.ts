import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * A boolean marker set on a route or its controller (`@Public()`, `@SkipThrottle()`), read
 * through the Reflector once per route: decorators never change once the app has started,
 * and guards ask on every request.
 */
export function routeFlag(
  reflector: Reflector,
  key: string,
): (context: ExecutionContext) => boolean {
  const byController = new Map<object, Map<object, boolean>>();
  return (context) => {
    const [handler, controller] = [context.getHandler(), context.getClass()];
    let routes = byController.get(controller);
    if (!routes) byController.set(controller, (routes = new Map()));
    let flag = routes.get(handler);
    if (flag === undefined) {
      flag = reflector.getAllAndOverride<boolean>(key, [handler, controller]) === true;
      routes.set(handler, flag);
    }
    return flag;
  };
}
