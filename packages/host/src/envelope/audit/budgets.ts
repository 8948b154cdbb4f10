import type { Violation } from '@cordon/plugin-api';
import type { Limits } from '../policy/policy.js';
import type { Metrics } from './record.js';
import { byteSize } from '../../output/byte-size.js';

/** Budget checks in the reference's order (the BEKO2210/SkillQuarry cordon): metric, limit key, message stem. */
const BUDGETS = [
  ['files', 'max_files', 'file budget exceeded'],
  ['added_lines', 'max_added_lines', 'added-line budget exceeded'],
  ['deleted_lines', 'max_deleted_lines', 'deleted-line budget exceeded'],
  ['working_bytes', 'max_working_bytes', 'working-byte budget exceeded'],
  ['binary_files', 'max_binary_files', 'binary-file budget exceeded'],
] as const;

/**
 * One violation per exceeded budget, `"<stem>: <actual> > <limit>"`, code `<limit key>_exceeded`;
 * the working bytes also in binary units once the limit is 1 KiB or more (`100000000 > 90000000
 * (95.4 MiB > 85.8 MiB)`, as the verdict's table shows them). Budgets are inclusive: a metric
 * equal to its limit passes (the BEKO2210/SkillQuarry cordon, H26).
 */
export function budgetViolations(metrics: Metrics, limits: Limits): Violation[] {
  const out: Violation[] = [];
  for (const [metric, limit, stem] of BUDGETS) {
    const actual = metrics[metric];
    const max = limits[limit];
    if (actual <= max) continue;
    const readable = metric === 'working_bytes' && max >= 1024 ? ` (${byteSize(actual)} > ${byteSize(max)})` : '';
    out.push({ code: `${limit}_exceeded`, message: `${stem}: ${actual} > ${max}${readable}`, limit: max, actual });
  }
  return out;
}
