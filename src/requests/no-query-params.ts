import { SetMetadata } from '@nestjs/common';

export const TAKES_NO_QUERY = 'takesNoQuery';

/**
 * Marks a route that takes no query parameters: ReadRequestGuard answers any with a 400 naming
 * each (docs/api.md, Endpoints). Routes that take some validate them with StrictQueryPipe.
 */
export const NoQueryParams = () => SetMetadata(TAKES_NO_QUERY, true);
