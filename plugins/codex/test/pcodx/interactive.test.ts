import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { privateTmux } from '../../../../test/support/tmux.js';
import { linkCodex, pcodx, tableRows } from './support.js';

let box: Sandbox;
let db: string;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-i-');
  linkCodex(box);
  db = join(box.root, 'pcodx.sqlite3');
});
afterEach(() => box.cleanup());

const BANNER = 'pcodx interactive\nsession_id=i\ncommands: /help /ids /show /message-ids /record /record-file /compact /uncompact /turn /exit; other lines are user turns\n';
const HELP = [
  'type a message to record it as a user turn and see the render, or a command:',
  '  /help                              this help (an empty line shows it too)',
  '  /ids                               visible ids, one per line',
  '  /show                              the render',
  '  /current-session-message-ids       the ids helper (alias /message-ids)',
  '  /record <role> <text>              record a message: system, developer, user, assistant or tool',
  '  /record-file <role> <path>         record a file (relative paths start at the session cwd)',
  '  /compact <from>..<to> <summary>    replace a visible range by a summary',
  '  /uncompact <cmpN>                  undo a compaction',
  '  /turn <text>                       record a user turn and see the render',
  '  /exit, /quit                       leave',
  'a line starting with / that is not one of these (/usr/bin/python is missing) is a user turn,',
  'unless its first word is close to one (/exti is refused: did you mean /exit?);',
  'start a line with // to send it anyway (//help records the turn /help, //exti the turn /exti)',
].join('\n');

describe('cordon pcodx interactive through piped stdin', () => {
  it('keeps user text verbatim, runs the slash commands, reports errors and goes on; no prompt off a terminal', async () => {
    const work = box.dir('work');
    mkdirSync(join(work, 'logs'));
    writeFileSync(join(work, 'logs', 'out.txt'), 'tool said\nthis\n');
    const lines = [
      '  hello with spaces  ',
      '/record assistant   indented reply',
      '/record-file tool logs/out.txt',
      '/ids',
      '/compact msg1..msg3 first three',
      '/show',
      '/record',
      '/compact msg9..msg1 x',
      '',
      '/turn  again',
      '/message-ids',
      '/uncompact cmp1',
      '/exit',
      'never read',
    ];
    const r = await pcodx(box, db, ['interactive', '--session', 'i', '--cwd', work], { input: `${lines.join('\n')}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      BANNER +
        'prompt_message_id=msg1\nfuture_context_source=pcodx-render\n  hello with spaces  \n<aboveturn id="msg1"/>\n' +
        'message_id=msg2\nvisible_ids=msg1,msg2\n' +
        'message_id=msg3\nvisible_ids=msg1,msg2,msg3\n' +
        'session_id=i\nmsg1\nmsg2\nmsg3\n' +
        'session_id=i\ncompaction_id=cmp1\nn_messages_replaced=3\nwarning=range msg1..msg3 holds system, developer or user messages; its summary must preserve active instructions and human intent\nvisible_ids=cmp1\n' +
        'first three\n<aboveturn id="cmp1"/>\n' +
        `${HELP}\n` +
        'prompt_message_id=msg4\nfuture_context_source=pcodx-render\nfirst three\n<aboveturn id="cmp1"/>\n\n again\n<aboveturn id="msg4"/>\n' +
        '# Visible message ids\n\nThese are the ids you can use as from_message_id and to_message_id; some hosts also list cmp... ids, which stand for earlier compactions.\n\n- cmp1, msg4\n' +
        'session_id=i\nuncompacted=cmp1\nn_messages_restored=3\nreinstated=\nvisible_ids=msg1,msg2,msg3,msg4\n' +
        'bye\n',
    );
    expect(r.stderr).toBe('usage: /record <role> <text>\nerror: endpoint `msg9` is not visible in the current session; use visible msg/cmp endpoints\n');
    expect(tableRows(db, 'select id, role, text, source from messages order by seq')).toEqual([
      { id: 'msg1', role: 'user', text: '  hello with spaces  ', source: 'cli-interactive' },
      { id: 'msg2', role: 'assistant', text: '  indented reply', source: 'cli-interactive' },
      { id: 'msg3', role: 'tool', text: 'tool said\nthis\n', source: `cli-interactive-file:${join(work, 'logs', 'out.txt')}` },
      { id: 'msg4', role: 'user', text: ' again', source: 'cli-interactive' },
    ]);
  });

  // readline ended a line at a lone \r too: `please\r/uncompact cmp1` was the turn `please` and then
  // the command /uncompact cmp1, though the line does not start with / (a writer that turns each
  // line starting with / into // could not see it coming), and `a\rb` was two turns.
  it('a line ends at \\n only: a carriage return inside a line is its text, never the start of a command; CRLF input is read as lines', async () => {
    const input = 'first\n/compact msg1..msg1 kept summary\nplease\r/uncompact cmp1\nx\r\n/exit\nnever\n';
    const r = await pcodx(box, db, ['interactive', '--session', 'i'], { input });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(tableRows(db, 'select id, text from messages order by seq')).toEqual([
      { id: 'msg1', text: 'first' },
      { id: 'msg2', text: 'please\r/uncompact cmp1' },
      { id: 'msg3', text: 'x' },
    ]);
    expect(tableRows(db, 'select id, superseded_by from compactions')).toEqual([{ id: 'cmp1', superseded_by: null }]);
    expect(r.stdout).not.toContain('uncompacted=');
  });

  // Piped bytes that are not UTF-8 were recorded with U+FFFD in their place (`record --text-file -`
  // refuses them); now the line is refused, naming it, and the loop goes on.
  it('a piped line that is not UTF-8 is refused by number and not recorded; the lines around it are', async () => {
    const input = Buffer.concat([Buffer.from('before\nbad '), Buffer.from([0xff, 0xfe]), Buffer.from(' line\nafter\n')]);
    const r = await pcodx(box, db, ['interactive', '--session', 'i'], { input });
    expect([r.exitCode, r.stderr]).toEqual([0, 'error: line 2 of stdin is not valid UTF-8 text; it was not recorded\n']);
    expect(tableRows(db, 'select id, text from messages order by seq')).toEqual([
      { id: 'msg1', text: 'before' },
      { id: 'msg2', text: 'after' },
    ]);
  });

  it('a line starting with / that is not a command is a user turn; // escapes a command name', async () => {
    const turns = ['/usr/bin/python is missing, fix it', '/tmp is full', '/etc/hosts', '/bogus arg', '/', '/ ', '/1'];
    const lines = [...turns, '//help', '//exit now', '///triple', '//exti', '/ids', '/exit'];
    const r = await pcodx(box, db, ['interactive', '--session', 'i'], { input: `${lines.join('\n')}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const recorded = [...turns, '/help', '/exit now', '//triple', '/exti'];
    expect(tableRows(db, 'select id, role, text from messages order by seq')).toEqual(recorded.map((text, i) => ({ id: `msg${i + 1}`, role: 'user', text })));
    expect(r.stdout).toContain('prompt_message_id=msg1\nfuture_context_source=pcodx-render\n/usr/bin/python is missing, fix it\n<aboveturn id="msg1"/>\n');
    // The known commands still run: /ids lists every turn, and /exit leaves.
    expect(r.stdout).toContain(`session_id=i\n${recorded.map((_, i) => `msg${i + 1}`).join('\n')}\nbye\n`);
  });

  it('a mistyped command (/exti, /shwo, /ids2, /record-files) is refused with the one meant and not recorded; the loop goes on', async () => {
    const typos = ['/exti', '/shwo', '/helpme', '/ids2', '/record-files x y', '/uncompat cmp1', '/Exit'];
    const r = await pcodx(box, db, ['interactive', '--session', 'i'], { input: `${[...typos, 'hello', '/turnaround is slow', '/showcase', '/usr/bin/python fails', '/exit'].join('\n')}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    const hint = '(to send it as a message, start the line with //)';
    expect(r.stderr.split('\n')).toEqual([
      `error: unknown command /exti; did you mean /exit? ${hint}`,
      `error: unknown command /shwo; did you mean /show? ${hint}`,
      `error: unknown command /helpme; did you mean /help? ${hint}`,
      `error: unknown command /ids2; did you mean /ids? ${hint}`,
      `error: unknown command /record-files; did you mean /record-file? ${hint}`,
      `error: unknown command /uncompat; did you mean /uncompact? ${hint}`,
      `error: unknown command /Exit; did you mean /exit? ${hint}`,
      '',
    ]);
    // Words that only begin with a command, and paths, are turns.
    expect(tableRows(db, 'select id, text from messages order by seq')).toEqual([
      { id: 'msg1', text: 'hello' },
      { id: 'msg2', text: '/turnaround is slow' },
      { id: 'msg3', text: '/showcase' },
      { id: 'msg4', text: '/usr/bin/python fails' },
    ]);
    expect(r.stdout.endsWith('bye\n')).toBe(true);
  });

  it('records an optional first prompt, and ends quietly at end of input', async () => {
    const r = await pcodx(box, db, ['interactive', '--session', 'i', '--text', 'first'], { input: '' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`prompt_message_id=msg1\n${BANNER}`);
    expect(tableRows(db, 'select source from messages')).toEqual([{ source: 'cli-interactive' }]);
  });
});

describe('cordon pcodx interactive in a real pseudo-terminal (tmux)', () => {
  const tmux = privateTmux('cordon-pcodx');
  afterEach(() => tmux.kill());

  async function screenWith(text: string, ms = 30_000): Promise<string> {
    const deadline = Date.now() + ms;
    let screen = '';
    while (Date.now() < deadline) {
      screen = tmux.run(['capture-pane', '-p', '-J', '-S', '-200', '-t', 'pcodx']).stdout;
      if (screen.includes(text)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`screen never showed ${JSON.stringify(text)}; it shows:\n${screen}`);
  }

  it('shows the pcodx> prompt, records typed text verbatim, renders, and leaves on /exit', async () => {
    const env = { ...box.env, PCODX_DB: db };
    const started = tmux.run(['new-session', '-d', '-s', 'pcodx', '-x', '160', '-y', '60', process.execPath, CORDON_BIN, 'pcodx', 'interactive', '--session', 'tty'], env);
    expect(started.status).toBe(0);
    expect(await screenWith('pcodx> ')).toContain('session_id=tty');

    tmux.run(['send-keys', '-t', 'pcodx', '-l', '  typed on a tty  ']);
    tmux.run(['send-keys', '-t', 'pcodx', 'Enter']);
    const afterTurn = await screenWith('<aboveturn id="msg1"/>');
    expect(afterTurn).toContain('prompt_message_id=msg1');
    expect(afterTurn).toContain('future_context_source=pcodx-render');
    expect(tableRows(db, 'select text, source from messages')).toEqual([{ text: '  typed on a tty  ', source: 'cli-interactive' }]);

    tmux.run(['send-keys', '-t', 'pcodx', '-l', '/record assistant noted']);
    tmux.run(['send-keys', '-t', 'pcodx', 'Enter']);
    // A fresh prompt follows every answer (capture-pane drops the prompt's trailing space).
    await screenWith('visible_ids=msg1,msg2\npcodx>');

    tmux.run(['send-keys', '-t', 'pcodx', '-l', '/usr/bin/python is missing, fix it']);
    tmux.run(['send-keys', '-t', 'pcodx', 'Enter']);
    expect(await screenWith('<aboveturn id="msg3"/>')).toContain('prompt_message_id=msg3');

    tmux.run(['send-keys', '-t', 'pcodx', '-l', '/exit']);
    tmux.run(['send-keys', '-t', 'pcodx', 'Enter']);
    const deadline = Date.now() + 30_000;
    while (tmux.run(['has-session', '-t', 'pcodx']).status === 0) {
      if (Date.now() > deadline) throw new Error('pcodx interactive did not exit on /exit');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(tableRows(db, 'select id, text from messages order by seq')).toEqual([
      { id: 'msg1', text: '  typed on a tty  ' },
      { id: 'msg2', text: 'noted' },
      { id: 'msg3', text: '/usr/bin/python is missing, fix it' },
    ]);
  }, 90_000);

  // The loop's line editor keeps the terminal in raw mode: Ctrl-C and Ctrl-D reach it as keys, not
  // as a signal or an end of file. Either ends the loop's line, so what the shell prints next starts
  // on one of its own; Ctrl-C ends as cordon ends on SIGINT (dies of it: 130), Ctrl-D with 0.
  for (const [key, status, typed] of [['C-c', 130, 'abc'], ['C-d', 0, '']] as const) {
    it(`${key === 'C-c' ? 'Ctrl-C' : 'Ctrl-D'} ends the line and exits ${status}`, async () => {
      const env = { ...box.env, PCODX_DB: db };
      const line = `'${process.execPath}' '${CORDON_BIN}' pcodx interactive --session tty; echo "RC=$?"; sleep 60`;
      expect(tmux.run(['new-session', '-d', '-s', 'pcodx', '-x', '160', '-y', '60', 'sh', '-c', line], env).status).toBe(0);
      await screenWith('pcodx> ');
      if (typed) tmux.run(['send-keys', '-t', 'pcodx', '-l', typed]);
      tmux.run(['send-keys', '-t', 'pcodx', key]);
      // capture-pane may drop the prompt's trailing space.
      expect(await screenWith('RC=')).toMatch(new RegExp(`\\npcodx> ?${typed}\\nRC=${status}\\n`));
    }, 60_000);
  }
});
