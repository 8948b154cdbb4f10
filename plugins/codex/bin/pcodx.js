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
const args = ['pcodx', ...(typeof subcommand === 'string' ? [subcommand] : []), ...process.argv.slice(2)];
const script = /\.[cm]?js$/i.test(cordon);
const child = script
  ? spawn(process.execPath, [cordon, ...args], { stdio: 'inherit' })
  : spawn(cordon, args, { stdio: 'inherit', shell: windows && /\.(cmd|bat)$/i.test(cordon) });

const forward = (signal) => () => child.kill(signal);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward(signal));

child.on('error', (error) => {
  process.stderr.write(`error: cannot run ${cordon}: ${error.message}\n`);
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
