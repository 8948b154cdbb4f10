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

  it('reads every key as JSON.parse does, "__proto__" included (the counterexample fast-check found)', () => {
    const text = '{ "a": { "__proto__": false, "k": [1, { "__proto__": { "x": 1 } }] }, "a2": 1, "a2": 2 }\n';
    const doc = jsonDocument('/p.json', text);
    expect(doc.value).toEqual(JSON.parse(text));
    expect(Object.hasOwn((doc.value as any).a, '__proto__')).toBe(true);
    doc.append(['cordonTest', 'list'], JSON.parse('{"__proto__": false}'));
    expect((doc.value as any).cordonTest.list.at(-1)).toEqual(JSON.parse('{"__proto__": false}'));
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

  it('refuses broken YAML and non-mapping roots', () => {
    expect(code(() => yamlDocument('/c.yaml', 'a: [1\nb: :'))).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(code(() => yamlDocument('/c.yaml', '- 1\n- 2\n'))).toBe('CORDON_CONFIG_UNPARSEABLE');
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
