import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Opens a route to callers without an API key. Only health, metrics and docs use it. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
