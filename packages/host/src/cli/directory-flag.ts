import { Flags } from '@oclif/core';
import { requireDirectory } from '../io/directory.js';

/**
 * A flag naming a directory that must already exist (`--repo`, `--project-dir`): a string flag
 * whose value oclif checks while it parses (io/directory.ts `requireDirectory`), so a missing
 * path, a file or an unreadable path is refused before the command does anything:
 * `CORDON_BAD_INPUT`, exit 2, `--project-dir "/x": no such directory` (cordon-command.ts prints it,
 * `--json` as the JSON error). The value is kept as typed (relative paths stay relative).
 * Takes `Flags.string`'s options (`description`, `helpValue`, …).
 */
export const directoryFlag = Flags.custom<string>({
  parse: async (input, _context, flag) => requireDirectory(`--${flag.name}`, input),
});
