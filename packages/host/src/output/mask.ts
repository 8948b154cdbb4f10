/** What a secret is replaced with (`redact.ts`, `redact-programs.ts`). */
export const MASK = '***';
