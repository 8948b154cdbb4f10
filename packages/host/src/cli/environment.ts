import { writeOutput } from '@cordon/plugin-api';
import { ERROR_CODES } from '../errors/index.js';
import { errorDocument, errorText } from '../output/error-text.js';
import { asksForJson } from './json-flag.js';
import { checkPaths, resolveDirOrigins, type DirKind } from '../util/paths.js';
import { checkDataPackage, dataPackageProblem } from '../plugins/data-package.js';
import { replaceOclifPluginWarnings, warnBlockingPlugins, warnDataPackage } from './plugin-warnings.js';
import { versionJson, versionLine } from './version.js';
import { shownJson } from '../output/json-text.js';

/**
 * Readies the environment for oclif, which `bin/run.cjs` calls before it loads `@oclif/core`
 * (`args`: the command line after `cordon`). Returns true when oclif may run.
 *
 * Cordon's directories are checked first (util/paths.ts `checkPaths`): a relative
 * `CORDON_*_DIR`, one that exists but is not a directory, or one this process cannot list and
 * enter, is refused before oclif's plugin loading reads `<data>/package.json` (which would print
 * Node's raw `[ENOTDIR]` or `[EACCES]` warning and go on without plugins); so is a
 * `<data>/package.json` that is not JSON (plugins/data-package.ts), for the same reason, except
 * for `doctor` (which reports it as one of its checks) and `control run` (which says so once on
 * stderr and runs the command: it wraps an agent's shell call); for those `'without-user-plugins'`
 * is returned, and oclif is to load without the file (its `userPlugins: false`), since it would
 * print Node's raw warning for it. So is any command when a plugin the file lists has a FIFO,
 * socket or device where oclif or cordon reads it (plugins/listed-plugins.ts `blocks`: oclif's
 * read would never return), after one `warning: …` line per listed plugin that cannot load. The refusal is printed as every cordon error is (`Error: …` / `Code: …`
 * on stderr; with `--json` before any `--`, the JSON document on stdout), the exit code set to 2,
 * and false returned. `cordon hook` through oclif (`CORDON_HOOK_VIA_OCLIF`) prints nothing and
 * exits 0 instead, as the hook always does.
 *
 * `cordon --version --json` (or `-v --json`) prints the version document (cli/version.ts) and
 * returns false: oclif would print its plain version line whatever follows the flag. The plain
 * `cordon --version` (`-v`) prints that line (`versionLine`, oclif's `config.userAgent`) and
 * returns false too: oclif would load itself, every plugin and the `init` hooks first.
 *
 * oclif resolves the directories itself and would take a relative `XDG_*_HOME` as given, where
 * cordon ignores it (the XDG Base Directory specification): for each such variable with no
 * `CORDON_*_DIR` beside it, `CORDON_*_DIR` is set in this process's environment to the directory
 * cordon resolved, so both read and write the same plugins and caches.
 */
export function prepareOclif(args: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean | 'without-user-plugins' {
  let withoutUserPlugins = false;
  try {
    const { dataDir } = checkPaths(env);
    // doctor lists a damaged file as one of its checks (doctor/runtime.ts) and goes on with the
    // rest; control run wraps an agent's shell call and must not break it: it says so once and runs.
    const tolerant = args[0] === 'doctor' || (args[0] === 'control' && args[1] === 'run');
    if (tolerant && dataPackageProblem(dataDir)) {
      if (args[0] === 'control') warnDataPackage(dataDir);
      withoutUserPlugins = true;
    } else checkDataPackage(dataDir);
    // A listed plugin oclif cannot load is named by cordon, not by oclif's five raw lines; doctor
    // reports it as a finding, and the hook prints nothing it does not decide.
    const quiet = args[0] === 'hook' || args[0] === 'doctor';
    // A FIFO or device where oclif reads a listed plugin would hold the command for ever: oclif
    // then loads none of the listed plugins, and each problem is said once.
    if (!withoutUserPlugins && warnBlockingPlugins(dataDir, { quiet })) withoutUserPlugins = true;
    replaceOclifPluginWarnings(dataDir, { quiet });
  } catch (error) {
    const hook = args[0] === 'hook' && !args.includes('--help') && !args.includes('-h');
    process.exitCode = hook ? 0 : 2;
    if (hook) return false;
    const { code, message, details } = error as { code?: unknown; message: string; details?: unknown };
    const reported = { code: typeof code === 'string' ? code : ERROR_CODES.INTERNAL, message: String(message), details };
    if (asksForJson(args)) writeOutput(1, `${shownJson(errorDocument(reported), 2)}\n`);
    else writeOutput(2, errorText(reported.message, reported.code));
    return false;
  }
  // oclif prints its version line for `--version` whatever follows; with --json, the document.
  // Both are answered here, without loading @oclif/core and every plugin's manifest for one line.
  const version = versionJson(args);
  if (version !== undefined) {
    writeOutput(1, `${shownJson(version, 2)}\n`);
    return false;
  }
  const line = versionLine(args);
  if (line !== undefined) {
    writeOutput(1, `${line}\n`);
    return false;
  }
  const origins = resolveDirOrigins(env);
  for (const kind of ['data', 'config', 'cache'] as const satisfies readonly DirKind[]) {
    const name = kind.toUpperCase();
    if (!env[`CORDON_${name}_DIR`] && env[`XDG_${name}_HOME`] && origins[kind].variable !== `XDG_${name}_HOME`) env[`CORDON_${name}_DIR`] = origins[kind].dir;
  }
  return withoutUserPlugins ? 'without-user-plugins' : true;
}
