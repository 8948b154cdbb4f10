import fc from 'fast-check';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { CordonError } from '../../src/errors/index.js';
import { jsonDocument, tomlDocument, yamlDocument } from '../../src/install-hooks/formats/index.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return (error as CordonError).code;
  }
  return undefined;
};

describe('json editor', () => {
  const text = '{\n    // the user\'s comment\n    "model": "x",\n    "hooks": {\n        "PreToolUse": []\n    }\n}\n';

  it('edits in place and keeps comments, indentation and key order; undoing the edits gives the same bytes', () => {
    const doc = jsonDocument('/s.json', text, { comments: true });
    doc.append(['hooks', 'PreToolUse'], { matcher: '*' });
    doc.append(['hooks', 'Stop'], { hooks: [] });
    const edited = doc.toString();
    expect(edited).toContain("// the user's comment");
    expect(edited).toContain('\n            {\n                "matcher": "*"');
    doc.remove(['hooks', 'Stop']);
    doc.remove(['hooks', 'PreToolUse', 0]);
    expect(doc.toString()).toBe(text);
  });

  it('refuses what does not parse, comments where JSON has none, and non-object roots', () => {
    expect(code(() => jsonDocument('/a.json', '{"a": 1,'))).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(code(() => jsonDocument('/a.json', text))).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(code(() => jsonDocument('/a.json', '[1]'))).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(() => jsonDocument('/a.json', '{"a": 1,'))
      .toThrow(/\/a\.json is not valid JSON .*line 1.*left untouched/);
  });

  // Valid JSON of the wrong shape was called "not valid JSON", and so was a key given twice.
  it.each([
    ['hooks null', '{"hooks": null}', ['hooks', 'PreToolUse'], '/s.json is JSON of another shape than the agent reads (hooks holds null, not an object)'],
    ['hooks a list', '{"hooks": []}', ['hooks', 'PreToolUse'], '/s.json is JSON of another shape than the agent reads (hooks holds a list, not an object)'],
    ['hooks a string', '{"hooks": "x"}', ['hooks', 'PreToolUse'], '/s.json is JSON of another shape than the agent reads (hooks holds a string, not an object)'],
    ['a list at the top', '[1]', undefined, '/s.json is JSON of another shape than the agent reads (the top level holds a list, not an object)'],
    ['null at the top', 'null', undefined, '/s.json is JSON of another shape than the agent reads (the top level holds null, not an object)'],
    ['a key twice', '{"hooks": {}, "hooks": {}}', undefined, '/s.json is ambiguous JSON ("hooks" is given twice, at line 1, column 2 and again at line 1, column 15; JSON keeps only the last: give each key once)'],
  ])('says what is wrong with %s without calling valid JSON invalid', (_name, text, append, said) => {
    const edit = () => {
      const doc = jsonDocument('/s.json', text);
      if (append) doc.append(append, { matcher: '*' });
    };
    expect(edit).toThrow(`${said}; refusing to edit it, the file is left untouched`);
    expect(code(edit)).toBe('CORDON_CONFIG_UNPARSEABLE');
  });

  it('says what is wrong in words, and names a byte order mark with what to do about it', () => {
    const message = (fn: () => unknown): string => {
      try {
        fn();
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(message(() => jsonDocument('/s.json', '{"a":\n'))).toBe('/s.json is not valid JSON (value expected at line 2, column 1); refusing to edit it, the file is left untouched');
    expect(message(() => jsonDocument('/s.json', '{"a": 1 // x\n}', { comments: true }))).toBe('');
    expect(message(() => jsonDocument('/s.json', '{"a": 1 "b": 2}', { comments: true }))).toBe('/s.json is not valid JSON with comments (comma expected at line 1, column 9); refusing to edit it, the file is left untouched');
    expect(message(() => jsonDocument('/s.json', '\uFEFF{"a": 1}\n'))).toBe('/s.json is not valid JSON (starts with a byte order mark (U+FEFF); save it as UTF-8 without BOM); refusing to edit it, the file is left untouched');
    expect(message(() => jsonDocument('/s.json', '\uFEFF{"a": 1}\n', { comments: true }))).toContain('(starts with a byte order mark (U+FEFF); save it as UTF-8 without BOM)');
  });

  it('bom: reads past a leading byte order mark and keeps it; removing what it added gives back the same bytes', () => {
    const text = '\uFEFF{\n  "model": "x"\n}\n';
    const doc = jsonDocument('/s.json', text, { bom: true });
    expect(doc.value).toEqual({ model: 'x' });
    doc.append(['hooks', 'Stop'], { hooks: [] });
    expect(doc.toString()).toBe('\uFEFF{\n  "model": "x",\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": []\n      }\n    ]\n  }\n}\n');
    doc.remove(['hooks']);
    expect(doc.toString()).toBe(text);
    // A file without one gets none; a broken one after the mark is told where, counted without it.
    expect(jsonDocument('/s.json', '{}', { bom: true }).toString()).toBe('{}');
    expect(() => jsonDocument('/s.json', '\uFEFF{"a":\n', { bom: true })).toThrow('(value expected at line 2, column 1)');
  });

  it('reads every key as JSON.parse does, "__proto__" included (the counterexample fast-check found)', () => {
    const text = '{ "a": { "__proto__": false, "k": [1, { "__proto__": { "x": 1 } }] }, "a2": 1 }\n';
    const doc = jsonDocument('/p.json', text);
    expect(doc.value).toEqual(JSON.parse(text));
    expect(Object.hasOwn((doc.value as any).a, '__proto__')).toBe(true);
    doc.append(['cordonTest', 'list'], JSON.parse('{"__proto__": false}'));
    expect((doc.value as any).cordonTest.list.at(-1)).toEqual(JSON.parse('{"__proto__": false}'));
  });

  it('refuses a key given twice in any object: JSON.parse keeps the last, where an edit could land in the first', () => {
    for (const text of ['{ "a2": 1, "a2": 2 }\n', '{ "hooks": { "Stop": [], "Stop": [] } }\n', '{ "k": [{ "x": 1, "x": 1 }] }\n']) {
      expect(() => jsonDocument('/p.json', text)).toThrow(expect.objectContaining({ code: 'CORDON_CONFIG_UNPARSEABLE', message: expect.stringContaining('is given twice') }));
    }
    // The same key in sibling objects is no repeat.
    expect(() => jsonDocument('/p.json', '{ "a": { "x": 1 }, "b": { "x": 2 } }\n')).not.toThrow();
  });

  it('appending then removing in any object gives back the same bytes (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }), fc.constantFrom(0, 2, 4, '\t'), fc.jsonValue({ maxDepth: 2 }), (object, indent, item) => {
        const original = JSON.stringify(object, null, indent) + '\n';
        const doc = jsonDocument('/p.json', original);
        const existed = Object.hasOwn(object, 'cordonTest');
        doc.append(['cordonTest', 'list'], item);
        expect((doc.value as any).cordonTest.list.at(-1)).toEqual(JSON.parse(JSON.stringify(item))); // JSON has no -0
        if (existed) return;
        doc.remove(['cordonTest']);
        expect(doc.toString()).toBe(original);
      }),
      { numRuns: 300 },
    );
  });

  it('starts a missing or blank file as an empty object', () => {
    expect(jsonDocument('/n.json', undefined).value).toEqual({});
    expect(jsonDocument('/n.json', '  \n').toString()).toBe('{}\n');
  });
});

describe('yaml editor', () => {
  const text = '# Hermes config\nmodel:\n  default: anthropic/claude # pinned\n\nhooks:\n  pre_tool_call:\n    - command: ~/guard.sh # user guard\nhooks_auto_accept: false\n';

  it('keeps comments and untouched nodes; an unedited file is returned byte for byte', () => {
    expect(yamlDocument('/c.yaml', text).toString()).toBe(text);
    const doc = yamlDocument('/c.yaml', text);
    doc.append(['hooks', 'pre_tool_call'], { command: 'cordon hook --agent hermes' });
    doc.append(['hooks', 'on_session_finalize'], { command: 'cordon hook --agent hermes' });
    const edited = doc.toString();
    for (const kept of ['# Hermes config', '# pinned', '# user guard', 'hooks_auto_accept: false']) expect(edited).toContain(kept);
    expect((doc.value as any).hooks.pre_tool_call).toHaveLength(2);
    doc.remove(['hooks', 'pre_tool_call', 1]);
    doc.remove(['hooks', 'on_session_finalize']);
    expect(doc.toString()).toBe(text);
  });

  // Issue 11 item 7: only cordon's lines change; spacing before comments, CRLF, blank lines stay.
  it('touches only its own lines: "x   # c" keeps its spaces, CRLF stays CRLF, no blank line is added', () => {
    const user = 'model: x   # c\r\nhooks:\r\n  pre_tool_call:\r\n    - command: ~/guard.sh    # mine\r\n\r\nother:   1\r\n';
    const doc = yamlDocument('/c.yaml', user);
    doc.append(['hooks', 'pre_tool_call'], { command: 'cordon hook --agent hermes', timeout: 30 });
    doc.append(['hooks', 'post_tool_call'], { command: 'cordon hook --agent hermes', timeout: 30 });
    expect(doc.toString()).toBe(
      'model: x   # c\r\nhooks:\r\n  pre_tool_call:\r\n    - command: ~/guard.sh    # mine\r\n    - command: cordon hook --agent hermes\r\n      timeout: 30\r\n  post_tool_call:\r\n    - command: cordon hook --agent hermes\r\n      timeout: 30\r\n\r\nother:   1\r\n',
    );
    doc.remove(['hooks', 'post_tool_call', 0]);
    doc.remove(['hooks', 'post_tool_call']);
    doc.remove(['hooks', 'pre_tool_call', 1]);
    expect(doc.toString()).toBe(user);
  });

  // Found by a hostile-input probe: with `hooks: !!map` (an explicit tag) install wrote its
  // entries, but uninstall-hooks refused to take them out again ("would not leave valid YAML:
  // Unexpected tag at node end"): the last entry's key got its empty collection before the tag
  // (`hooks: {} !!map`).
  it('removing the last entry of a tagged or anchored block collection puts the empty one after the tag and anchor', () => {
    const tagged = 'model: x\nhooks: !!map\n  pre_tool_call: []\n';
    const doc = yamlDocument('/c.yaml', tagged);
    doc.append(['hooks', 'on_session_finalize'], { command: 'c' });
    doc.remove(['hooks', 'on_session_finalize', 0]);
    doc.remove(['hooks', 'on_session_finalize']);
    expect(doc.toString()).toBe(tagged);
    doc.remove(['hooks', 'pre_tool_call']);
    expect(doc.toString()).toBe('model: x\nhooks: !!map {}\n');
    const anchored = yamlDocument('/c.yaml', 'hooks: &h !!map # mine\n  pre_tool_call: !!seq\n    - command: c\n');
    anchored.remove(['hooks', 'pre_tool_call', 0]);
    expect(anchored.toString()).toBe('hooks: &h !!map # mine\n  pre_tool_call: !!seq []\n');
    anchored.remove(['hooks', 'pre_tool_call']);
    expect(anchored.toString()).toBe('hooks: &h !!map {} # mine\n');
    expect(anchored.value).toEqual({ hooks: {} });
  });

  // Found by a hostile-input probe: `pre_tool_call: *mine` (an alias of a list anchored
  // elsewhere) was refused as "hooks.pre_tool_call holds a list where the agent expects a list of
  // hooks", a message that contradicts itself; `hooks: *h` likewise.
  it('refuses an edit through an alias, saying it is one', () => {
    for (const [text, at, source] of [
      ['mine: &mine []\nhooks:\n  pre_tool_call: *mine\n', 'hooks.pre_tool_call', 'mine'],
      ['h: &h\n  pre_tool_call: []\nhooks: *h\n', 'hooks', 'h'],
    ] as const) {
      const doc = yamlDocument('/c.yaml', text);
      let message = '';
      try {
        doc.append(['hooks', 'pre_tool_call'], { command: 'c' });
      } catch (error) {
        message = (error as Error).message;
        expect((error as { code?: string }).code).toBe('CORDON_CONFIG_EDIT');
      }
      expect(message).toBe(`/c.yaml: adding to hooks.pre_tool_call cannot be done by a surgical edit (${at} is an alias (*${source}) of a node anchored elsewhere, which cordon does not edit through: write it out in place); the file is left untouched`);
      expect(doc.toString()).toBe(text);
    }
  });

  it('an empty flow map or list (`hooks: {}`, `event: []`) becomes a block in place; a file without a final newline gets none added', () => {
    const doc = yamlDocument('/c.yaml', 'a: 1 # one\nhooks: {}\nz: 2');
    doc.append(['hooks', 'pre_tool_call'], { command: 'c' });
    expect(doc.toString()).toBe('a: 1 # one\nhooks:\n  pre_tool_call:\n    - command: c\nz: 2');
    const list = yamlDocument('/c.yaml', 'hooks:\n  pre_tool_call: []   # none yet\n');
    list.append(['hooks', 'pre_tool_call'], { command: 'c' });
    expect(list.value).toEqual({ hooks: { pre_tool_call: [{ command: 'c' }] } });
    expect(list.toString()).toContain('# none yet');
    const end = yamlDocument('/c.yaml', 'a: 1');
    end.append(['hooks', 'x'], { command: 'c' });
    expect(end.toString()).toBe('a: 1\nhooks:\n  x:\n    - command: c\n');
    const empty = yamlDocument('/c.yaml', undefined);
    empty.append(['hooks', 'x'], { command: 'c' });
    expect(empty.toString()).toBe('hooks:\n  x:\n    - command: c\n');
  });

  it('appending cordon entries to any user config and removing them again gives back the same bytes (property)', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    const comment = fc.option(fc.stringMatching(/^ {1,4}# [a-z ]{0,10}$/), { nil: '' });
    const config = fc.record({
      eol: fc.constantFrom('\n', '\r\n'),
      top: fc.uniqueArray(word, { maxLength: 3 }),
      events: fc.uniqueArray(word, { maxLength: 3 }),
      userHooks: fc.array(fc.tuple(word, comment), { maxLength: 3 }),
      blank: fc.boolean(),
      comment,
    });
    fc.assert(
      fc.property(config, fc.uniqueArray(word, { minLength: 1, maxLength: 4 }), (c, ours) => {
        const lines = c.top.filter((k) => k !== 'hooks').map((k) => `${k}: v${c.comment}`);
        const events = c.events;
        if (events.length) {
          lines.push(`hooks:${c.comment}`);
          for (const e of events) {
            lines.push(`  ${e}:`);
            for (const [cmd, note] of c.userHooks) lines.push(`    - command: ${cmd}${note}`);
            if (c.userHooks.length === 0) lines[lines.length - 1] += ' []';
          }
        }
        if (c.blank) lines.push('');
        lines.push(`tail: 1${c.comment}`);
        const text = lines.join(c.eol) + c.eol;
        const doc = yamlDocument('/c.yaml', text);
        const before = doc.value as any;
        for (const e of ours) doc.append(['hooks', e], { command: 'cordon hook --agent hermes', timeout: 30 });
        const after = doc.toString();
        if (c.eol === '\r\n') expect(after.replace(/\r\n/g, '')).not.toContain('\n');
        else expect(after).not.toContain('\r');
        for (const e of ours) expect((doc.value as any).hooks[e].at(-1)).toEqual({ command: 'cordon hook --agent hermes', timeout: 30 });
        // Everything that was there is still there, unchanged.
        for (const line of lines) if (!/^(hooks:|  \S+: \[\])/.test(line)) expect(after).toContain(line);
        for (const e of [...ours].reverse()) {
          const list = (doc.value as any).hooks[e] as unknown[];
          doc.remove(['hooks', e, list.length - 1]);
          if (list.length === 1 && !(before.hooks && e in before.hooks)) doc.remove(['hooks', e]);
        }
        if (!before.hooks) doc.remove(['hooks']);
        expect(doc.value).toEqual(before);
        if (c.userHooks.length > 0 || events.length === 0) expect(doc.toString()).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  // Found by a hostile-input probe: with a byte order mark before the first key, cordon's new
  // `hooks:` line copied it as indentation and the edit was refused as "the layout around it is
  // one cordon does not rewrite", though Hermes (PyYAML) reads the file past the mark.
  it('a leading byte order mark is read past and kept; removing what was added gives back the same bytes', () => {
    for (const text of ['\uFEFFmodel: x\n', '\uFEFF# mine\r\nmodel: x\r\n', '\uFEFFhooks:\n  pre_tool_call:\n    - command: mine\n', '\uFEFF']) {
      const doc = yamlDocument('/c.yaml', text);
      doc.append(['hooks', 'pre_tool_call'], { command: 'cordon hook --agent hermes', timeout: 30 });
      const written = doc.toString();
      expect(written.startsWith('\uFEFF')).toBe(true);
      expect(written.indexOf('\uFEFF', 1)).toBe(-1);
      const again = yamlDocument('/c.yaml', written);
      expect((again.value as any).hooks.pre_tool_call.at(-1).command).toBe('cordon hook --agent hermes');
      const list = (again.value as any).hooks.pre_tool_call as unknown[];
      again.remove(['hooks', 'pre_tool_call', list.length - 1]);
      if (list.length === 1) again.remove(['hooks', 'pre_tool_call']);
      if (list.length === 1) again.remove(['hooks']);
      expect(again.toString()).toBe(text);
    }
  });

  it('refuses a key given twice in one mapping, naming it and both lines (found in one pass, not the yaml library\'s quadratic check); merge keys may repeat', () => {
    expect(() => yamlDocument('/c.yaml', 'model: x\nhooks:\n  pre_tool_call: []\n  pre_tool_call: [{command: mine}]\n')).toThrow(
      '/c.yaml is ambiguous YAML ("pre_tool_call" is given twice in one mapping, at line 3 and again at line 4; Hermes reads only the last: give each key once); refusing to edit it, the file is left untouched',
    );
    expect(code(() => yamlDocument('/c.yaml', 'l:\n  - a: 1\n    a: 2\n'))).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(code(() => yamlDocument('/c.yaml', 'b: &b {x: 1}\nc: &c {y: 1}\nm:\n  <<: *b\n  <<: *c\n'))).toBeUndefined();
  });

  // Found by a hostile-input probe: `hooks:` with its events commented out (as Hermes' example
  // config has them), `hooks: ~` or an event with no value was refused as "hooks is not a
  // mapping" / "the layout around it is one cordon does not rewrite", though Hermes reads them
  // as no hooks yet.
  it('an empty value where hooks or an event belongs (`hooks:`, `hooks: ~`, `pre_tool_call:`) gets cordon\'s entries in place', () => {
    const cases: Array<[string, string]> = [
      ['hooks:\n#   pre_tool_call:\n#     - command: mine\nmodel: x\n', 'hooks:\n  pre_tool_call:\n    - command: c\n      timeout: 30\n#   pre_tool_call:\n#     - command: mine\nmodel: x\n'],
      ['hooks: ~\r\nmodel: x\r\n', 'hooks:\r\n  pre_tool_call:\r\n    - command: c\r\n      timeout: 30\r\nmodel: x\r\n'],
      ['hooks:\n  pre_tool_call:\n  post_tool_call: []\n', 'hooks:\n  pre_tool_call: [{"command":"c","timeout":30}]\n  post_tool_call: []\n'],
    ];
    for (const [text, expected] of cases) {
      const doc = yamlDocument('/c.yaml', text);
      doc.append(['hooks', 'pre_tool_call'], { command: 'c', timeout: 30 });
      expect(doc.toString()).toBe(expected);
      expect((yamlDocument('/c.yaml', expected).value as any).hooks.pre_tool_call).toEqual([{ command: 'c', timeout: 30 }]);
    }
  });

  it('refuses broken YAML and non-mapping roots', () => {
    expect(code(() => yamlDocument('/c.yaml', 'a: [1\nb: :'))).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(code(() => yamlDocument('/c.yaml', '- 1\n- 2\n'))).toBe('CORDON_CONFIG_UNPARSEABLE');
  });

  // Valid YAML of the wrong shape was called "not valid YAML", and two documents got the yaml
  // library's advice to call `YAML.parseAllDocuments()`.
  it.each([
    ['a list at the top', '- 1\n- 2\n', '/c.yaml is YAML of another shape than the agent reads (the top level holds a list, not a mapping)'],
    ['a string at the top', 'just text\n', '/c.yaml is YAML of another shape than the agent reads (the top level holds a string, not a mapping)'],
    ['two documents', 'hooks: {}\n---\nmodel: x\n', '/c.yaml is not valid YAML (it holds more than one document (the second starts at line 2), and a config file is one)'],
    ['two documents after a marker', '---\na: 1\n...\n---\nb: 2\n', '/c.yaml is not valid YAML (it holds more than one document (the second starts at line 4), and a config file is one)'],
  ])('says what is wrong with %s in its own words', (_name, text, said) => {
    expect(() => yamlDocument('/c.yaml', text)).toThrow(`${said}; refusing to edit it, the file is left untouched`);
    expect(() => yamlDocument('/c.yaml', text)).not.toThrow(/parseAllDocuments/);
  });
});

describe('toml editor (surgical edits, re-parsed)', () => {
  const text = '# my codex config\nmodel = "gpt-5.5" # fast\n\n[features]\nhooks = true\n\n# trusted projects\n[projects."/w"]\ntrust_level = "trusted"\n';

  it('appends a table, leaves every other byte alone, and removes it again exactly', () => {
    const doc = tomlDocument('/c.toml', text);
    doc.upsertTable(['hooks', 'state', '/x/hooks.json:pre_tool_use:0:0'], { trusted_hash: 'sha256:aa' }, 'cordon trust');
    const edited = doc.toString();
    expect(edited.startsWith(text)).toBe(true);
    expect(edited.slice(text.length)).toBe('\n# cordon trust\n[hooks.state."/x/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:aa"\n');
    expect((parse(edited) as any).hooks.state['/x/hooks.json:pre_tool_use:0:0'].trusted_hash).toBe('sha256:aa');
    doc.upsertTable(['hooks', 'state', '/x/hooks.json:pre_tool_use:0:0'], { trusted_hash: 'sha256:bb' }, 'cordon trust');
    expect(doc.toString()).toBe(edited.replace('sha256:aa', 'sha256:bb'));
    doc.removeTable(['hooks', 'state', '/x/hooks.json:pre_tool_use:0:0'], 'cordon trust');
    expect(doc.toString()).toBe(text);
  });

  it('updates a table the user wrote with other quoting in place', () => {
    const user = "[hooks.state.'/x:stop:0:0']\n# keep me\ntrusted_hash = 'old'\n";
    const doc = tomlDocument('/c.toml', user);
    doc.upsertTable(['hooks', 'state', '/x:stop:0:0'], { trusted_hash: 'new' });
    expect(doc.toString()).toBe("[hooks.state.'/x:stop:0:0']\n# keep me\ntrusted_hash = \"new\"\n");
  });

  it('refuses tables written inline or with dotted keys, and broken TOML, leaving the text as it was', () => {
    const inline = 'hooks = { state = { "k" = { trusted_hash = "a" } } }\n';
    const doc = tomlDocument('/c.toml', inline);
    expect(code(() => doc.upsertTable(['hooks', 'state', 'k'], { trusted_hash: 'b' }))).toBe('CORDON_CONFIG_EDIT');
    expect(doc.toString()).toBe(inline);
    expect(code(() => tomlDocument('/c.toml', 'a = \n'))).toBe('CORDON_CONFIG_UNPARSEABLE');
  });

  // Found by a hostile-input probe: a config.toml that does not parse was refused as "not valid
  // TOML (Invalid TOML document: invalid value)", without the place docs/hooks.md promises for
  // every syntax error, and which JSON and YAML give.
  it('names the line and column of a syntax error', () => {
    const message = (text: string): string | undefined => {
      try {
        tomlDocument('/c.toml', text);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    expect(message('model = "x"\nhooks = \n')).toBe('/c.toml is not valid TOML (invalid value at line 2, column 9); refusing to edit it, the file is left untouched');
    expect(message('model = "a"\r\nmodel = "b"\r\n')).toMatch(/^\/c\.toml is not valid TOML \(trying to redefine an already defined table or value at line 2, column \d+\);/);
  });

  it('any set of upserts then removals restores the original text (property)', () => {
    const key = fc.string({ minLength: 1, maxLength: 30 }).filter((k) => !/[\u0000-\u001f\u007f]/.test(k));
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 6 }), fc.string({ maxLength: 20 }).filter((v) => !/[\u0000-\u001f\u007f]/.test(v)), (keys, value) => {
        const doc = tomlDocument('/c.toml', text);
        for (const k of keys) doc.upsertTable(['hooks', 'state', k], { trusted_hash: value }, 'cordon trust');
        const state = (parse(doc.toString()) as any).hooks?.state ?? {};
        for (const k of keys) expect(Object.getOwnPropertyDescriptor(state, k)?.value.trusted_hash).toBe(value);
        for (const k of [...keys].reverse()) doc.removeTable(['hooks', 'state', k], 'cordon trust');
        expect(doc.toString()).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});
