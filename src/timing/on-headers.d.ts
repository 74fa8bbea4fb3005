declare module 'on-headers' {
  import { ServerResponse } from 'node:http';

  /** Calls `listener` once, just before `res` writes its status line and headers. */
  function onHeaders(res: ServerResponse, listener: (this: ServerResponse) => void): void;
  export = onHeaders;
}
