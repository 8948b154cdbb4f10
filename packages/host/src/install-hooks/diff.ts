import { createTwoFilesPatch } from 'diff';
import type { ConfigChange } from '@cordon/plugin-api';

/** A unified diff of one change (`/dev/null` for a created or deleted file), as `git diff` would show it. */
export function changeDiff(change: ConfigChange): string {
  const from = change.before === undefined ? '/dev/null' : change.path;
  const to = change.after === undefined ? '/dev/null' : change.path;
  return createTwoFilesPatch(from, to, change.before ?? '', change.after ?? '', undefined, undefined, { context: 3 });
}
