/**
 * What the Codex app-server's websocket reader takes (Codex 0.171, measured; these are the defaults
 * of its websocket library, tungstenite's `WebSocketConfig`:
 * https://docs.rs/tungstenite/0.20.1/tungstenite/protocol/struct.WebSocketConfig.html): one frame of
 * at most 16 MiB of payload, one message (its frames together) of at most 64 MiB. Anything larger
 * makes it drop the connection (close 1006) with every request still pending on it.
 *
 * Its stdio transport (`--listen stdio://`, one JSON message per line) has no such bound: Codex
 * 0.171 took a 140 MB `thread/inject_items` line and answered it (measured). `pcodx model-turn`
 * still keeps to these sizes (`inject.ts`), so both transports send the same bounded calls.
 */
export const APP_SERVER_WS_LIMITS = Object.freeze({
  /** Largest frame payload, bytes. */
  frameBytes: 16 * 1024 * 1024,
  /** Largest message, bytes. */
  messageBytes: 64 * 1024 * 1024,
});
