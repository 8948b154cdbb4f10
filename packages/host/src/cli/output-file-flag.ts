import { Flags } from '@oclif/core';
import { refuseFileTarget } from '../envelope/state/state-dir-target.js';
import { requireFileName } from '../output/report-file.js';

/**
 * A flag naming a file cordon writes (a report's `--out`, a telemetry store's `--db`): a string
 * flag whose value oclif checks while it parses, so that a path spelled as a directory (`r.json/`)
 * or a file that would land inside an envelope's `.cordon/` directory (through links and `..` too: envelope/state/state-dir-target.ts)
 * is refused before the command runs anything: `CORDON_BAD_INPUT`, exit 2, naming the flag, the
 * path and the directory; so is an empty name ({@link requireFileName}). The value is kept as
 * typed; `-` (standard output) passes. The writers
 * themselves check again (output/report-file.ts, telemetry/reduce/db/target.ts), for callers
 * that do not come through a flag. Takes `Flags.string`'s options.
 */
export const outputFileFlag = Flags.custom<string>({
  parse: async (input, _context, flag) => {
    requireFileName(`--${flag.name}`, input);
    refuseFileTarget(`--${flag.name}`, input);
    return input;
  },
});
