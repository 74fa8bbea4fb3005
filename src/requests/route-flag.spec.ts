import { ExecutionContext, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { routeFlag } from './route-flag';

const Marked = () => SetMetadata('marked', true);

class Plain {
  open() {}
  @Marked()
  marked() {}
}

@Marked()
class WhollyMarked {
  open() {}
}

const route = (controller: new () => object, handler: string) =>
  ({
    getClass: () => controller,
    getHandler: () => (controller.prototype as Record<string, () => void>)[handler],
  }) as unknown as ExecutionContext;

describe('routeFlag', () => {
  it('reads a marker on the handler or its controller', () => {
    const isMarked = routeFlag(new Reflector(), 'marked');
    expect(isMarked(route(Plain, 'open'))).toBe(false);
    expect(isMarked(route(Plain, 'marked'))).toBe(true);
    expect(isMarked(route(WhollyMarked, 'open'))).toBe(true);
  });

  it('reads each route once, however often it is asked', () => {
    const reflector = new Reflector();
    const reads = jest.spyOn(reflector, 'getAllAndOverride');
    const isMarked = routeFlag(reflector, 'marked');
    for (let i = 0; i < 3; i++) {
      isMarked(route(Plain, 'open'));
      isMarked(route(Plain, 'marked'));
    }
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
