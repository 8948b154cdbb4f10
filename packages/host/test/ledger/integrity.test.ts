import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fingerprint, ledgerSandbox } from './helpers.js';

const { L, dir } = ledgerSandbox();

/**
 * A ledger cordon wrote, closed: session `s` with msg1..msg6 (user, assistant, tool, assistant,
 * user, assistant); cmp1 (msg2..msg3) folded into cmp2 (cmp1..msg4, so msg2..msg4), and cmp3
 * over msg6. Active: cmp2 and cmp3.
 */
async function makeLedger(path: string): Promise<void> {
  const ledger = await L.open(path);
  await ledger.resolveSession({ mode: 'create', id: 's' });
  await ledger.record('s', [
    { role: 'user', text: 'u1' },
    { role: 'assistant', text: 'call' },
    { role: 'tool', text: 'result' },
    { role: 'assistant', text: 'a4' },
    { role: 'user', text: 'u5' },
    { role: 'assistant', text: 'a6' },
  ]);
  await ledger.compact('s', [{ from: 'msg2', to: 'msg3', summary: 'the call' }]);
  await ledger.compact('s', [{ from: 'cmp1', to: 'msg4', summary: 'call and answer' }]);
  await ledger.compact('s', [{ from: 'msg6', to: 'msg6', summary: 'last answer' }]);
  await L.closeAll();
}

/** Changes the file behind cordon's back, past its constraints (a crafted or damaged file). */
function tamper(path: string, sqlText: string): void {
  const db = new Database(path);
  try {
    db.pragma('foreign_keys = OFF');
    db.pragma('ignore_check_constraints = ON');
    db.exec(sqlText);
  } finally {
    db.close();
  }
}

/** [what is wrong, the SQL that makes it so, what the error says about the row]. */
const DAMAGE: Array<[string, string, string]> = [
  [
    'a compaction ending at a message that does not exist (msg999999)',
    `update compactions set to_seq = 999999, to_msg_id = 'msg999999', n_messages_replaced = 999994 where id = 'cmp3'`,
    'compactions row "cmp3" of session "s": its range msg6..msg999999 names a message that does not exist (the session has msg1..msg6)',
  ],
  [
    'a compaction starting at msg0',
    `update compactions set from_seq = 0, from_msg_id = 'msg0', n_messages_replaced = 7 where id = 'cmp3'`,
    'compactions row "cmp3" of session "s": its range msg0..msg6 names a message that does not exist',
  ],
  [
    'an inverted range',
    `update compactions set from_seq = 6, from_msg_id = 'msg6', to_seq = 5, to_msg_id = 'msg5', n_messages_replaced = 0 where id = 'cmp3'`,
    'compactions row "cmp3" of session "s": its range msg6..msg5 ends before it starts',
  ],
  [
    'two active compactions that overlap',
    `insert into compactions values ('s', 'cmp4', 4, 'msg4', 'msg5', 4, 5, 'overlap', 0, 2, null); update sessions set last_compaction_seq = 4`,
    'compactions row "cmp4" of session "s": its range msg4..msg5 overlaps the active compaction "cmp2" (msg2..msg4)',
  ],
  ['a range whose ids and seqs disagree', `update compactions set to_msg_id = 'msg5' where id = 'cmp3'`, 'compactions row "cmp3" of session "s": its range "msg6".."msg5" does not match its seqs 6..6'],
  ['a wrong n_messages_replaced', `update compactions set n_messages_replaced = 9 where id = 'cmp2'`, 'compactions row "cmp2" of session "s": n_messages_replaced is 9, but its range holds 3 messages'],
  ['a blank summary', `update compactions set summary = '  ' where id = 'cmp3'`, 'compactions row "cmp3" of session "s": its summary is blank'],
  ['a compaction id that is not cmp<seq>', `update compactions set id = 'cmpX' where id = 'cmp3'`, 'compactions row "cmpX" of session "s": its id is not cmp<seq> (seq 3)'],
  ['a compaction seq above last_compaction_seq', `update sessions set last_compaction_seq = 2`, 'compactions row "cmp3" of session "s": its seq 3 is above the session\'s last_compaction_seq 2'],
  [
    'superseded_by naming no compaction',
    `update compactions set superseded_by = 'cmp77' where id = 'cmp1'`,
    'compactions row "cmp1" of session "s": superseded_by "cmp77" does not name a later compaction of the session that covers it',
  ],
  [
    'superseded_by naming one that does not cover it',
    `update compactions set superseded_by = 'cmp3' where id = 'cmp1'`,
    'compactions row "cmp1" of session "s": superseded_by "cmp3" does not name a later compaction of the session that covers it',
  ],
  ['a compaction of an unknown session', `insert into compactions values ('ghost', 'cmp1', 1, 'msg1', 'msg1', 1, 1, 'x', 0, 1, null)`, 'compactions row "cmp1" of session "ghost" names a session that has no sessions row'],
  ['an unknown role', `update messages set role = 'robot' where seq = 5`, 'messages row "msg5" (seq 5, role "robot") of session "s": its role is not one of system, developer, user, assistant, tool'],
  ['a role stored as bytes', `update messages set role = cast('user' as blob) where seq = 5`, 'messages row "msg5" (seq 5, role "user") of session "s": its role is not one of system, developer, user, assistant, tool'],
  ['a role in another case', `update messages set role = 'User' where seq = 5`, 'messages row "msg5" (seq 5, role "User") of session "s": its role is not one of'],
  ['a flag that is neither 0 nor 1', `update messages set preserve_warning = 2 where seq = 3`, 'messages row "msg3" (seq 3, role "tool") of session "s": preserve_warning does not match its role'],
  ['a tool message flagged as a human prompt', `update messages set is_human_prompt = 1 where seq = 3`, 'messages row "msg3" (seq 3, role "tool") of session "s": is_human_prompt does not match its role'],
  ['a gap in the sequence', `delete from messages where seq = 5`, 'the messages of session "s" do not run msg1..msg5 without gaps (5 rows, seq 1 to 6)'],
  ['a message id that is not msg<seq>', `update messages set id = 'msg9' where seq = 5`, 'messages row "msg9" (seq 5, role "user") of session "s": its id is not msg<seq>'],
  ['an empty text', `update messages set text = '' where seq = 4`, 'messages row "msg4" (seq 4, role "assistant") of session "s": its text is empty or not text'],
  ['is_human_prompt against the role', `update messages set is_human_prompt = 1 where seq = 4`, 'messages row "msg4" (seq 4, role "assistant") of session "s": is_human_prompt does not match its role'],
  ['preserve_warning against the role', `update messages set preserve_warning = 0 where seq = 1`, 'messages row "msg1" (seq 1, role "user") of session "s": preserve_warning does not match its role'],
  ['messages of an unknown session', `insert into messages values ('ghost', 'msg1', 1, 'user', 'boo', null, 0, 1, 1)`, 'messages rows name session "ghost", which has no sessions row'],
  [
    'a correlation id cordon did not make',
    `update sessions set usage_correlation_id = 'pcses-' || 'secret-user@example.com'`,
    'sessions row "s" has a usage correlation id that cordon did not make (expected pcses- and 32 lowercase hex digits)',
  ],
  ['an upper-case correlation id', `update sessions set usage_correlation_id = 'pcses-' || upper(substr(usage_correlation_id, 7))`, 'sessions row "s" has a usage correlation id that cordon did not make'],
  [
    'a session name with a bidirectional override',
    `update sessions set id = 'x' || char(8238) || 'gpj.exe' ; update messages set session_id = 'x' || char(8238) || 'gpj.exe'; update compactions set session_id = 'x' || char(8238) || 'gpj.exe'; update messages set role = 'robot' where seq = 2`,
    'messages row "msg2" (seq 2, role "robot") of session "x\\u202egpj.exe": its role is not one of',
  ],
  ['a session name with a control character', `update sessions set id = 's' || char(27) || '[2J' ; update messages set session_id = 's' || char(27) || '[2J'; update compactions set session_id = 's' || char(27) || '[2J'`, 'sessions row "s\\u001b[2J" has a name that is not a valid session name'],
];

describe('stored rows are checked when the ledger is opened', () => {
  it('a ledger cordon wrote, nested and undone compactions included, opens as it is', async () => {
    const path = join(dir(), 'l.sqlite3');
    await makeLedger(path);
    const ledger = await L.open(path);
    await ledger.uncompact('s', 'cmp2');
    await L.closeAll();
    expect(await (await L.open(path)).visibleIds('s')).toEqual(['msg1', 'cmp1', 'msg4', 'msg5', 'cmp3']);
  });

  it.each(DAMAGE)('%s: a damaged ledger, the file and the row named, the file left unchanged', async (_what, damage, row) => {
    const path = join(dir(), 'l.sqlite3');
    await makeLedger(path);
    tamper(path, damage);
    // A mode an older cordon left: a refused file keeps it (the chmod comes after the checks).
    chmodSync(path, 0o644);
    const before = `${fingerprint(path)} mode=${(statSync(path).mode & 0o777).toString(8)}`;
    const error = await L.open(path).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe('CORDON_DB_ERROR');
    expect(error?.message).toContain(`ledger database ${path} is damaged: ${row}`);
    expect(error?.message).toContain('it was left unchanged');
    expect(`${fingerprint(path)} mode=${(statSync(path).mode & 0o777).toString(8)}`).toBe(before);
    expect(before).toMatch(/wal=false mode=644$/);
  });
});
