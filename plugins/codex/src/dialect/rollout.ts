import type { PayloadReaders } from '@cordon/plugin-api';

/** How much of the rollout's end is read when looking for a call's exit code, bytes. */
export const ROLLOUT_TAIL_BYTES = 256 * 1024;

/**
 * The exit code Codex recorded for shell call `callId` in its rollout transcript
 * (`transcript_path`, JSON lines): the `event_msg` `item_completed` whose item `id` is the call
 * id carries `exit_code` (observed with codex-cli 0.171.0). Codex's hook payload itself carries
 * only the output text (the Codex hooks docs), so this is the one place the exit code
 * is written down. The path comes from the payload, so the file is read only through the host's
 * `fileTail` (non-blocking, regular files only: a FIFO or `/dev/zero` there cannot stall the
 * hook), and only its last {@link ROLLOUT_TAIL_BYTES}; `undefined` when the
 * file, the line or the field is missing. Never throws.
 */
export function exitCodeFromRollout(fileTail: PayloadReaders['fileTail'], path: string, callId: string): number | undefined {
  const text = fileTail(path, ROLLOUT_TAIL_BYTES);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  const needle = JSON.stringify(callId);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('item_completed') || !line.includes(needle)) continue;
    let entry: { payload?: { type?: string; item?: { id?: unknown; exit_code?: unknown; exitCode?: unknown } } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const item = entry?.payload?.type === 'item_completed' ? entry.payload.item : undefined;
    if (!item || item.id !== callId) continue;
    const code = item.exit_code ?? item.exitCode;
    if (typeof code === 'number' && Number.isInteger(code)) return code;
  }
  return undefined;
}
