import { readdirSync } from 'node:fs';
import type { Hook } from '@oclif/core';
import { hostBinDir, linkPluginBins, linkedBinNames, unlinkStaleBins } from '../plugins/plugin-bins.js';

/**
 * oclif `plugins:postinstall` / `plugins:postuninstall` hook: a plugin's own bins (`pcodx` of
 * @cordon/codex) land in `<data>/node_modules/.bin`, which is on nobody's PATH. After an install
 * they are linked next to the host's `cordon` when a package manager put it on PATH through a
 * link, otherwise the user is told which directory to add; after an uninstall the links left
 * dangling are removed.
 */
/** After `cordon plugins install`: link (or point to) the installed plugins' bins. */
export const postinstall: Hook<'plugins:postinstall'> = async function ({ config }) {
  const binDir = hostBinDir();
  for (const l of linkPluginBins(config.dataDir, binDir)) {
    if (l.outcome === 'linked') this.log(`${l.plugin}: linked its command \`${l.name}\` into ${binDir}`);
    else if (l.outcome === 'kept') this.warn(`${l.plugin}: ${binDir}/${l.name} exists and is not cordon's; run ${l.target} directly or put it on PATH`);
    else this.log(`${l.plugin}: its command \`${l.name}\` is in ${config.dataDir}/node_modules/.bin; add that directory to PATH to run it`);
  }
};

/** After `cordon plugins uninstall`: remove the bin links left pointing at nothing. */
export const postuninstall: Hook<'plugins:postuninstall'> = async function ({ config }) {
  const binDir = hostBinDir();
  let names: string[] = [];
  try {
    names = binDir ? readdirSync(binDir) : [];
  } catch {
    names = [];
  }
  unlinkStaleBins(config.dataDir, binDir, linkedBinNames(config.dataDir, binDir, names));
};
