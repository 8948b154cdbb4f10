import type { Hook } from '@oclif/core';
import { CORDON_API } from '@cordon/plugin-api';
import { loadHost } from '../bus/load-host.js';

/**
 * oclif `init` hook: leaves a lazy host-api factory at `globalThis[CORDON_API]` so plugin
 * commands can call `cordonApi(name)` without importing host code. Nothing loads until asked.
 */
const hook: Hook.Init = async function ({ config }) {
  Object.defineProperty(globalThis, CORDON_API, {
    configurable: true,
    value: async (plugin: string) => (await loadHost(config)).apiFor(plugin),
  });
};

export default hook;
