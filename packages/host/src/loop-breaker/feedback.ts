/**
 * What the loop breaker tells the model at the `failures`-th consecutive failure of one command
 * (docs/hooks.md "The loop breaker"). The wording follows the control note's rule from its third
 * warning (`control/note.ts`: retrying unchanged is unlikely to help). It does not repeat the
 * command: the model has it in the call it just made, and text the model wrote is not echoed back.
 * One line.
 */
export function loopFeedbackText(failures: number): string {
  return (
    `[cordon] This exact command has now failed ${failures} times in a row in this session, unchanged. ` +
    'Repeating it unchanged is unlikely to help: read its error, then change the command or what it depends on, or try another approach.'
  );
}
