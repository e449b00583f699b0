/**
 * The Engine API's multiplexed log and attach streams (a container without a TTY): frames of an 8-byte
 * header (stream 1 = stdout, 2 = stderr; a big-endian 32-bit length) and their payload, cut anywhere
 * across chunks. Hand-written beside dockerode's `demuxStream`, which writes into two streams (the order
 * of stdout and stderr between them is lost) and joins its whole pending buffer with every chunk.
 */

export type StreamName = 'stdout' | 'stderr';

interface Frame {
  stream: StreamName;
  payload: Buffer;
}

const HEADER = 8;

export class FrameDemuxer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** Feeds a chunk; returns the frames (or the parts of a frame's payload) it completed, in order. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    // A long frame coming in many chunks is joined once, when it is whole.
    if (this.pendingBytes >= HEADER && this.pendingBytes + chunk.length < this.needed()) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      return frames;
    }
    let buffer = chunk;
    if (this.pendingBytes > 0) {
      buffer = Buffer.concat([...this.pending, chunk], this.pendingBytes + chunk.length);
      this.pending = [];
      this.pendingBytes = 0;
    }
    let at = 0;
    while (buffer.length - at >= HEADER) {
      const kind = buffer[at];
      const length = buffer.readUInt32BE(at + 4);
      if (buffer.length - at - HEADER < length) break;
      const payload = buffer.subarray(at + HEADER, at + HEADER + length);
      // 0 is stdin (never in a log); anything but 2 is read as stdout.
      frames.push({ stream: kind === 2 ? 'stderr' : 'stdout', payload });
      at += HEADER + length;
    }
    if (at < buffer.length) {
      this.pending.push(buffer.subarray(at));
      this.pendingBytes = buffer.length - at;
    }
    return frames;
  }

  /** The bytes the frame held starts with needs, header included. */
  private needed(): number {
    const first = this.pending[0] as Buffer;
    const header = first.length >= HEADER ? first : Buffer.concat(this.pending).subarray(0, HEADER);
    return HEADER + header.readUInt32BE(4);
  }

  /** Bytes of a frame not yet complete. */
  get held(): number {
    return this.pendingBytes;
  }
}
