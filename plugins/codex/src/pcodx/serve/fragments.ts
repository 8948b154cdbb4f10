import WebSocket, { type RawData } from 'ws';

/** The size of a message in bytes, without copying it. */
export function byteLengthOf(data: RawData | string): number {
  if (typeof data === 'string') return Buffer.byteLength(data, 'utf8');
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data.byteLength;
}

/** A message as bytes (`ws` hands a message over as a Buffer, a list of Buffers or an ArrayBuffer). */
export function messageBytes(data: RawData | string): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/**
 * Cuts a message into pieces of at most `maxBytes` (≥ 4) bytes. A text message is never cut inside
 * a UTF-8 character (RFC 6455 allows it, but a reader that checks each frame would refuse it).
 */
export function fragmentsOf(bytes: Buffer, maxBytes: number, text: boolean): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  while (bytes.length - start > maxBytes) {
    let end = start + maxBytes;
    // 0b10xxxxxx is a continuation byte: back off to the first byte of its character.
    if (text) while (end > start + 1 && (bytes[end]! & 0xc0) === 0x80) end--;
    pieces.push(bytes.subarray(start, end));
    start = end;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/**
 * Sends one message on `socket` as frames of at most `maxFrameBytes`: a message that fits goes in
 * one frame as it came; a larger one as a first frame and continuation frames (`fin` only on the
 * last). `ws` queues the frames of one call back to back, so no other message interleaves.
 */
export function sendFragmented(socket: WebSocket, data: RawData | string, binary: boolean, maxFrameBytes: number): void {
  if (byteLengthOf(data) <= maxFrameBytes) {
    socket.send(data, { binary });
    return;
  }
  const pieces = fragmentsOf(messageBytes(data), maxFrameBytes, !binary);
  pieces.forEach((piece, i) => socket.send(piece, { binary, fin: i === pieces.length - 1 }));
}
