import { describe, expect, it } from 'vitest';
import { budgetViolations } from '../../src/envelope/audit/budgets.js';

const limits = { max_files: 10, max_added_lines: 100, max_deleted_lines: 100, max_working_bytes: 2 * 1024 * 1024, max_binary_files: 0 };
const within = { files: 10, added_lines: 100, deleted_lines: 0, working_bytes: 2 * 1024 * 1024, binary_files: 0 };

describe('budgetViolations', () => {
  it('budgets are inclusive: every metric at its limit passes', () => {
    expect(budgetViolations(within, limits)).toEqual([]);
  });

  it('the working bytes read in binary units too once the limit is 1 KiB or more; the numbers stay exact', () => {
    const [v] = budgetViolations({ ...within, working_bytes: 2 * 1024 * 1024 + 1536 }, limits);
    expect(v).toEqual({ code: 'max_working_bytes_exceeded', message: 'working-byte budget exceeded: 2098688 > 2097152 (2.0 MiB > 2 MiB)', limit: 2097152, actual: 2098688 });
    const [small] = budgetViolations({ ...within, working_bytes: 9 }, { ...limits, max_working_bytes: 0 });
    expect(small!.message).toBe('working-byte budget exceeded: 9 > 0');
    expect(budgetViolations({ ...within, files: 11 }, limits)[0]!.message).toBe('file budget exceeded: 11 > 10');
  });
});
