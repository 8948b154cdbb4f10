/**
 * A one-line progress bar for `stream` (stderr), drawn only when it is a terminal: a batch piped
 * to a file or another program gets no control characters. Returns the callback for
 * `onProgress` and a `done` that clears the line.
 */
export function progressBar(stream: NodeJS.WriteStream & { isTTY?: boolean }, label: string): { onProgress?: (done: number, total: number) => void; done(): void } {
  if (!stream.isTTY) return { done() {} };
  const width = 30;
  let last = -1;
  return {
    onProgress(done, total) {
      const filled = total ? Math.round((done / total) * width) : width;
      if (filled === last && done !== total) return;
      last = filled;
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
    },
    done() {
      if (last >= 0) stream.write('\r\x1b[2K');
    },
  };
}
