import { Transform, TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

// Adler-32's modulus, and how many bytes its sums take before they must be reduced.
const ADLER_BASE = 65521;
const ADLER_RUN = 5552;

function adler32(bytes: Buffer, start: number): number {
  let a = start & 0xffff;
  let b = start >>> 16;
  for (let i = 0; i < bytes.length;) {
    const end = Math.min(i + ADLER_RUN, bytes.length);
    for (; i < end; i++) b += a += bytes[i];
    a %= ADLER_BASE;
    b %= ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** The checksum and length of the bytes a gzip or deflate stream holds: what its trailer states. */
export class DeflateSums {
  private crc = 0;
  private adler = 1;
  private length = 0;

  constructor(readonly encoding: 'gzip' | 'deflate') {}

  add(bytes: Buffer): void {
    if (this.encoding === 'gzip') this.crc = zlib.crc32(bytes, this.crc);
    else this.adler = adler32(bytes, this.adler);
    this.length += bytes.length;
  }

  copy(): DeflateSums {
    return Object.assign(new DeflateSums(this.encoding), this);
  }

  /** gzip: CRC-32 and length (modulo 2^32), little-endian (RFC 1952); deflate: Adler-32, big-endian (RFC 1950). */
  trailer(): Buffer {
    const trailer = Buffer.alloc(this.encoding === 'gzip' ? 8 : 4);
    if (this.encoding === 'gzip') {
      trailer.writeUInt32LE(this.crc >>> 0, 0);
      trailer.writeUInt32LE(this.length % 2 ** 32, 4);
    } else {
      trailer.writeUInt32BE(this.adler, 0);
    }
    return trailer;
  }
}

/**
 * The rest of a gzip or deflate stream for one response, after a compressor others go on using
 * sent it everything up to a sync flush (a byte boundary, no final block): deflate blocks of
 * their own may follow there, then the trailer of the whole body. So a response can leave a
 * shared compressor mid-body, its bytes a valid stream. `sums` are those of the body so far.
 */
export class DeflateContinuation extends Transform {
  private readonly raw = zlib.createDeflateRaw();

  constructor(private readonly sums: DeflateSums) {
    super();
    this.raw.on('data', (chunk: Buffer) => this.push(chunk));
    this.raw.on('error', (error) => this.destroy(error));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.sums.add(chunk);
    this.raw.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    this.raw.once('end', () => callback(null, this.sums.trailer()));
    this.raw.end();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.raw.destroy();
    callback(error);
  }
}
