import type { Hook } from '@oclif/core';
import { commandFlags, reportCommandError } from '../cli/command-error.js';
import { asksForJson } from '../cli/json-flag.js';

/**
 * oclif `finally` hook, run after every command, with the error it ended with: the one place where
 * an error no cordon command class caught (a plugin's command, oclif's own `help`,
 * `autocomplete` and `plugins` commands) is put in cordon's error form when it is cordon's or
 * oclif's (cli/command-error.ts: a parse error, `this.error(…)`), with `--json` in the command
 * line giving the JSON document. Marked as handled (`skipOclifErrorHandling`, oclif's own flag for
 * an error already shown), oclif then only exits with its code. Any other error is left to oclif.
 */
const hook: Hook.Finally = async function ({ argv, Command, error, id, config }) {
  if (error === undefined) return;
  const reported = reportCommandError(error, { config, id, args: Command?.args, flags: commandFlags(Command), json: asksForJson(argv ?? []) });
  if (!reported) return;
  const handled = error as Error & { skipOclifErrorHandling?: boolean; oclif?: { exit?: number } };
  handled.skipOclifErrorHandling = true;
  handled.oclif = { ...handled.oclif, exit: reported.oclif.exit };
};

export default hook;
