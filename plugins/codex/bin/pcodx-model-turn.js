#!/usr/bin/env node
// `pcodx-model-turn …` is `cordon pcodx model-turn …`: the pcodx bin does the work (finding cordon,
// passing stdio, signals and the exit code through); this file only names the subcommand.
globalThis[Symbol.for('@cordon/codex.pcodx-subcommand')] = 'model-turn';
await import('./pcodx.js');
