/**
 * Resolves after `ms` milliseconds, like `setTimeout` of `node:timers/promises`, which `control
 * run` would otherwise load with this plugin on every command to wait only after a command left
 * processes behind.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
