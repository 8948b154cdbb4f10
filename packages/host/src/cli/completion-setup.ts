import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Interfaces } from '@oclif/core';
import { posixQuote } from '../install-hooks/quote/posix.js';
import { powershellQuote } from '../install-hooks/quote/powershell.js';

/**
 * The shell lines of cordon's completion setup, with every path quoted for its shell.
 *
 * `@oclif/plugin-autocomplete` 3.2 prints and writes them with the cache directory pasted in bare
 * (`CORDON_AC_BASH_SETUP_PATH=/home/a b/.cache/cordon/autocomplete/bash_setup && test -f $… &&
 * source $…`): in a cache directory holding a space the line `eval`ed from `~/.bashrc` ran the
 * path's second word as a command, and one holding `$(…)` ran that. The variable names and the
 * file layout are oclif's, so lines already in users' shell profiles keep working.
 */

/** Shells `cordon autocomplete script` prints a line for. */
export type CompletionShell = 'bash' | 'zsh' | 'powershell';

/** `<cache>/autocomplete`, where oclif's completion keeps its files. */
export function completionDir(config: Interfaces.Config): string {
  return join(config.cacheDir, 'autocomplete');
}

/** The environment variable prefix oclif derives from the bin name (`CORDON`). */
function binVar(config: Interfaces.Config): string {
  return config.bin.toUpperCase().replaceAll('-', '_');
}

/**
 * The line `cordon autocomplete script SHELL` prints, for a shell profile to run: bash and zsh
 * source `<cache>/autocomplete/<shell>_setup` when it exists, PowerShell dot-sources the
 * completion script; each path as one quoted word.
 */
export function completionScriptLine(config: Interfaces.Config, shell: CompletionShell): string {
  const dir = completionDir(config);
  if (shell === 'powershell') return `. ${powershellQuote(join(dir, 'functions', 'powershell', `${config.bin}.ps1`))}`;
  const name = `${binVar(config)}_AC_${shell.toUpperCase()}_SETUP_PATH`;
  return `\n${name}=${posixQuote(join(dir, `${shell}_setup`))} && test -f "$${name}" && source "$${name}"; # ${config.bin} autocomplete setup\n`;
}

/** `<cache>/autocomplete/bash_setup`'s text: sources the bash completion function file. */
export function bashSetup(config: Interfaces.Config): string {
  const name = `${binVar(config)}_AC_BASH_COMPFUNC_PATH`;
  return `${name}=${posixQuote(join(completionDir(config), 'functions', 'bash', `${config.bin}.bash`))} && test -f "$${name}" && source "$${name}";\n`;
}

/** `<cache>/autocomplete/zsh_setup`'s text: puts the zsh functions directory first on `fpath` and starts completion. */
export function zshSetup(config: Interfaces.Config): string {
  return `\nfpath=(\n${posixQuote(join(completionDir(config), 'functions', 'zsh'))}\n$fpath\n);\nautoload -Uz compinit;\ncompinit;\n`;
}

/** Writes {@link bashSetup} and {@link zshSetup} over the files `autocomplete create` wrote (none when it wrote none). */
export async function writeCompletionSetup(config: Interfaces.Config): Promise<void> {
  const dir = completionDir(config);
  if (!existsSync(dir)) return;
  await Promise.all([writeFile(join(dir, 'bash_setup'), bashSetup(config)), writeFile(join(dir, 'zsh_setup'), zshSetup(config))]);
}
