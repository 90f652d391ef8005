/**
 * The SSH wire encoding (RFC 4251 §5) that SSH keys and signatures are made of: big-endian uint32
 * and length-prefixed byte strings. Only encoding; every cryptographic operation is node:crypto's.
 *
 * The reader never reads past its buffer: a truncated or lying length is a `SshFormatError` naming
 * what was being read, so a damaged key or signature file gets a clear message, not a RangeError.
 */

/** Bytes that do not follow the SSH wire format (truncated, wrong magic, trailing data). */
export class SshFormatError extends Error {
  override readonly name = 'SshFormatError';
}

/** Reads uint32s and strings from SSH wire-format bytes. */
export class SshReader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  raw(length: number, what: string): Uint8Array {
    if (length < 0 || this.offset + length > this.bytes.length) {
      throw new SshFormatError(`truncated while reading ${what}`);
    }
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  uint32(what: string): number {
    const b = this.raw(4, what);
    return ((b[0] ?? 0) * 0x1000000 + ((b[1] ?? 0) << 16) + ((b[2] ?? 0) << 8) + (b[3] ?? 0)) >>> 0;
  }

  string(what: string): Uint8Array {
    return this.raw(this.uint32(`the length of ${what}`), what);
  }

  text(what: string): string {
    return Buffer.from(this.string(what)).toString('utf8');
  }

  /** Fails unless every byte was read: trailing data is never silently ignored. */
  end(what: string): void {
    if (this.remaining !== 0) throw new SshFormatError(`${this.remaining} unexpected bytes after ${what}`);
  }
}

/** Builds SSH wire-format bytes. */
export class SshWriter {
  private readonly parts: Uint8Array[] = [];

  raw(bytes: Uint8Array | string): this {
    this.parts.push(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
    return this;
  }

  uint32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(value >>> 0);
    this.parts.push(b);
    return this;
  }

  string(bytes: Uint8Array | string): this {
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    return this.uint32(data.length).raw(data);
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}
