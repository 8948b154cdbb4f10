import type { ProcessTreeSampler } from '@cordon/plugin-api';
import { ProcTreeReader } from './proc-tree.js';

/** The `/proc` implementation of {@link ProcessTreeSampler} (loaded by the `linux-proc` entry). */
export const procTreeSampler: ProcessTreeSampler = {
  open: (rootPid) => new ProcTreeReader(rootPid),
};
