import { isRequestLineOverflow } from './client-error';

// The packets are what Node passes with HPE_HEADER_OVERFLOW (rawPacket, bytesParsed): the one
// it was reading, and how far into it the head went over the limit.
const packet = (text: string) => Buffer.from(text, 'latin1');
const a = (n: number) => 'a'.repeat(n);

describe('isRequestLineOverflow', () => {
  it('sees a request line read whole, from its start', () => {
    const text = `GET /${a(100)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    expect(isRequestLineOverflow(packet(text), text.indexOf(' HTTP'))).toBe(true);
  });

  it('sees the request line of a request pipelined after another', () => {
    const text = `GET /x HTTP/1.1\r\nHost: x\r\n\r\nGET /${a(100)} HTTP/1.1\r\n`;
    expect(isRequestLineOverflow(packet(text), text.lastIndexOf(' HTTP'))).toBe(true);
  });

  it('sees a header line read from its start, with or without a space after the colon', () => {
    for (const header of [`X-Big: ${a(100)}`, `X-Big:${a(100)}`]) {
      const text = `GET /x HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`;
      expect(isRequestLineOverflow(packet(text), text.indexOf(header) + header.length)).toBe(false);
    }
  });

  it('takes the end of a line begun in an earlier packet for a request target without whitespace', () => {
    expect(isRequestLineOverflow(packet(a(1000)), 1000)).toBe(true);
    expect(isRequestLineOverflow(packet(`${a(990)} HTTP/1.1\r\n`), 990)).toBe(true);
  });

  it('takes it for a header when it holds whitespace, like a cookie', () => {
    expect(isRequestLineOverflow(packet(`a=${a(500)}; b=${a(500)}`), 1005)).toBe(false);
  });

  it('is a header overflow when the packet is unknown', () => {
    expect(isRequestLineOverflow(undefined)).toBe(false);
  });
});
