/**
 * The warning `control run` logs for each command it runs unguarded (no `enforce` backend
 * answered). `cordon doctor` passes over it when it shows the log's last warning: its control
 * row already says why enforcement is unavailable here.
 */
export const UNGUARDED_WARNING = 'control run: unguarded (no enforce backend answered)';
