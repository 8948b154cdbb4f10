#!/usr/bin/env node
// `pcodx …` is `cordon pcodx …`. The pcodx commands need the host's ledger, and a plugin installed
// with `cordon plugins install` cannot import host code, so this bin never imports anything of
// cordon: it runs the `cordon` CLI as a child with the same stdio, forwards termination signals,
// and exits with the child's code (or re-raises the signal that ended it).
//
// Which `cordon`: $CORDON_BIN (a path; `.js`/`.mjs`/`.cjs` files run with this Node), else the
// first `cordon` on PATH, else the @cordon/host this package can resolve (the monorepo).
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

const windows = process.platform === 'win32';

function onPath(name) {
  const exts = windows ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').map((e) => e.toLowerCase()) : [''];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      try {
        accessSync(candidate, windows ? constants.F_OK : constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

function workspaceHost() {
  try {
    const pjson = createRequire(import.meta.url).resolve('@cordon/host/package.json');
    const bin = JSON.parse(readFileSync(pjson, 'utf8')).bin?.cordon;
    return typeof bin === 'string' ? join(dirname(pjson), bin) : undefined;
  } catch {
    return undefined;
  }
}

const cordon = process.env.CORDON_BIN || onPath('cordon') || workspaceHost();
if (!cordon) {
  process.stderr.write('error: pcodx runs `cordon pcodx`, but no cordon was found: set CORDON_BIN or put cordon on PATH (npm install -g @cordon/host)\n');
  process.exit(127);
}

// `pcodx-model-turn` (bin/pcodx-model-turn.js) names its subcommand here before importing this file.
const subcommand = globalThis[Symbol.for('@cordon/codex.pcodx-subcommand')];
const own = process.argv.slice(2);
// `pcodx --version` is this package's version (cordon's own is `cordon --version`).
if (own.length === 1 && (own[0] === '--version' || own[0] === '-v')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.name}/${pkg.version} (pcodx runs \`cordon pcodx\` of ${cordon})\n`);
  process.exit(0);
}
const args = ['pcodx', ...(typeof subcommand === 'string' ? [subcommand] : []), ...own];
// Help is cordon's, written for `cordon pcodx …`: shown as this bin's own (`pcodx …`).
const help = own.some((a) => a === '--help' || a === '-h') || own[0] === 'help' || own.length === 0;
const stdio = help ? ['inherit', 'pipe', 'inherit'] : 'inherit';
const script = /\.[cm]?js$/i.test(cordon);
const child = script
  ? spawn(process.execPath, [cordon, ...args], { stdio })
  : spawn(cordon, args, { stdio, shell: windows && /\.(cmd|bat)$/i.test(cordon) });
if (help) {
  // A reader that stops early (`pcodx --help | head`) ends the output quietly.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    child.stdout.destroy();
  });
  child.stdout.setEncoding('utf8');
  let pending = '';
  // `pcodx-model-turn --help` shows its own name (`pcodx-model-turn`), not `pcodx model-turn`.
  const ownName = typeof subcommand === 'string' ? new RegExp(`(^|[\\s$\`])cordon pcodx ${subcommand}(?=[\\s\`]|$)`, 'gm') : undefined;
  const rewrite = (text) => (ownName ? text.replace(ownName, `$1pcodx-${subcommand}`) : text).replace(/(^|[\s$`])cordon pcodx(?=[\s`]|$)/gm, '$1pcodx');
  child.stdout.on('data', (chunk) => {
    const text = pending + chunk;
    const cut = text.lastIndexOf('\n') + 1;
    pending = text.slice(cut);
    process.stdout.write(rewrite(text.slice(0, cut)));
  });
  child.stdout.on('end', () => process.stdout.write(rewrite(pending)));
}

const forward = (signal) => () => child.kill(signal);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward(signal));

/** Why spawn(2) could not run a program, in words (`spawn /x ENOENT` named neither the cause nor where /x came from). */
const SPAWN_WORDS = { ENOENT: 'no such file', EACCES: 'permission denied (a directory, or a file without execute permission)', ENOEXEC: 'not an executable format', ENOTDIR: 'a part of its path is not a directory', ELOOP: 'a loop of symbolic links' };

child.on('error', (error) => {
  // A path from the environment may hold anything: control characters are shown, not sent.
  // eslint-disable-next-line no-control-regex
  const shown = (text) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const named = process.env.CORDON_BIN ? `CORDON_BIN=${shown(cordon)}` : shown(cordon);
  const why = SPAWN_WORDS[error.code] ?? error.message;
  const remedy = process.env.CORDON_BIN ? '; point CORDON_BIN at the cordon executable (or its bin/run.cjs), or unset it to use cordon on PATH' : '';
  process.stderr.write(`error: cannot run ${named}: ${why}${remedy}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
