// Writes the JSON Schemas (draft 2020-12) of the `--json` outputs that carry `schema_version` into
// packages/host/schemas/, generated from the TypeScript types the commands print, so a schema can
// never describe a field the code does not have. `.cordon.json`'s schema is written by hand
// (schemas/cordon-settings.schema.json): the file's keys are the flag names, not a type's.
//
// Run: `npm run schemas -w @cordon/host` (or the script with `--check`: exit 1 when a committed schema
// differs from what the types give). ts-json-schema-generator emits draft-07; the only draft-07
// keyword it uses that 2020-12 renamed is `definitions` (now `$defs`), so that is rewritten.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGenerator } from 'ts-json-schema-generator';

const host = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each generated schema: file name, source file, exported type, title. */
export const GENERATED = [
  { file: 'analyze.schema.json', path: 'src/telemetry/analyze/index.ts', type: 'AnalysisReport', title: 'cordon analyze --json (--format json)' },
  { file: 'analyze-compare.schema.json', path: 'src/telemetry/analyze/report/compare.ts', type: 'CompareReport', title: 'cordon analyze --compare A B --json' },
  { file: 'doctor.schema.json', path: 'src/doctor/report.ts', type: 'DoctorReport', title: 'cordon doctor --json' },
  { file: 'top.schema.json', path: 'src/top/snapshot.ts', type: 'TopSnapshot', title: 'cordon top --json' },
];

/** Rewrites `$ref`s from draft-07 `#/definitions/…` to 2020-12 `#/$defs/…` (property names are left alone). */
function refsTo2020(node) {
  if (Array.isArray(node)) return node.map(refsTo2020);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' ? value.replace('#/definitions/', '#/$defs/') : refsTo2020(value);
  }
  return out;
}

/** Draft-07 schema → 2020-12: the top-level `definitions` become `$defs`, references follow. */
function toDraft2020(schema) {
  const { definitions, ...rest } = refsTo2020(schema);
  return definitions === undefined ? rest : { ...rest, $defs: definitions };
}

/** The schema text for one entry of {@link GENERATED}. */
export function generate(entry) {
  const generator = createGenerator({
    path: join(host, entry.path),
    tsconfig: join(host, 'tsconfig.json'),
    type: entry.type,
    skipTypeCheck: true,
    additionalProperties: false,
    expose: 'export',
    jsDoc: 'extended',
  });
  const raw = toDraft2020(generator.createSchema(entry.type));
  delete raw.$schema;
  const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', title: entry.title, ...raw };
  return JSON.stringify(schema, null, 2) + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const entry of GENERATED) {
    const target = join(host, 'schemas', entry.file);
    const text = generate(entry);
    if (check) {
      let old = '';
      try { old = readFileSync(target, 'utf8'); } catch {}
      if (old !== text) { stale++; console.error(`${entry.file} is stale: run npm run schemas -w @cordon/host`); }
    } else writeFileSync(target, text);
  }
  process.exitCode = stale ? 1 : 0;
}
