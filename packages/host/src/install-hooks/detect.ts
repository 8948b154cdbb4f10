import type { HookInstaller, InstallContext } from '@cordon/plugin-api';

/** What {@link detectAgent} found: whether the agent looks installed here, and the words for why. */
export interface AgentDetection {
  readonly detected: boolean;
  /**
   * What was looked for, as found: for a detected agent what was there (`` `codex` is on PATH ``,
   * `directory /home/u/.codex exists`), else what was missing (`` no `codex` command on PATH, no
   * directory /home/u/.codex ``). Empty when the installer asked about nothing.
   */
  readonly why: string;
}

/**
 * Runs the installer's own `detect` (HookInstaller.detect: the agent's command on PATH or its
 * config directory) with a context that notes each command and directory it asks about, so
 * `install-hooks --all` and `doctor` say exactly what they looked for, whatever the plugin's
 * rule. Throws what `detect` throws.
 */
export async function detectAgent(installer: HookInstaller, ctx: InstallContext): Promise<AgentDetection> {
  const found: string[] = [];
  const missing: string[] = [];
  const probing: InstallContext = {
    ...ctx,
    which: (name: string) => {
      const path = ctx.which(name);
      (path === undefined ? missing : found).push(path === undefined ? `no \`${name}\` command on PATH` : `\`${name}\` is on PATH`);
      return path;
    },
    isDirectory: (path: string) => {
      const there = ctx.isDirectory(path);
      (there ? found : missing).push(there ? `directory ${path} exists` : `no directory ${path}`);
      return there;
    },
  };
  const detected = await installer.detect(probing);
  return { detected, why: [...new Set(detected ? found : missing)].join(', ') };
}
