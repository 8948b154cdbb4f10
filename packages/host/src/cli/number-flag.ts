import { Errors, Flags } from '@oclif/core';
import { parseNumberText, type NumberRule } from '../util/number-range.js';

/**
 * The oclif flag type of a numeric flag, read by the one parser of numeric settings
 * (util/number-range.ts), called with the flag's options as `Flags.integer` is:
 * `numberFlag({ integer: true, min: 0 })({ description: … })`. A value it refuses names the flag,
 * echoes the value and says the range: `--verify-output-cap: expected a whole number of bytes from 1
 * to 9007199254740991 but received: "9007199254740992"; see \`cordon arm --help\``
 * (cli/usage-message.ts puts oclif's wrapping on one line), exit 2.
 */
export function numberFlag(rule: NumberRule) {
  return Flags.custom<number>({
    parse: async (input) => {
      try {
        return parseNumberText(input, rule);
      } catch (error) {
        // oclif's own error type: it carries exit 2, which CordonCommand reads as bad input.
        throw new Errors.CLIError((error as Error).message);
      }
    },
  });
}
