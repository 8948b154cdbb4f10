// The one file-system layer every writer and every reader of untrusted paths goes through:
// atomic writes that keep symlinks, whole appends, bounded non-blocking reads, owner-only dirs.
export { appendLine, splitJsonLines } from './append.js';
export { rotateWhenFull } from './rotate.js';
export type { AppendIo, JsonLines } from './append.js';
export { forEachLine, readJsonLines } from './read-lines.js';
export { windowLines } from './window-lines.js';
export type { WindowLines } from './window-lines.js';
export { EXCLUSIVE_CREATE, fsyncDirectory, isTempName, renameOver, tempPathBeside, writeFileAtomic, writeTarget } from './atomic-write.js';
export type { AtomicWriteOptions, DirSyncOps } from './atomic-write.js';
export { ensurePrivateDir, ensurePrivateFile, tightenPrivateFile } from './private-dir.js';
export { absolute, fileKind, isInside, isSymlink, readRegularFile, readRegularFileHead, readRegularFileIfExists, readRegularFileTail, readRegularFileWindow, resolveWithinRoot, UnsafeReadError } from './safe-read.js';
export type { FileWindow, SafeReadOptions, UnsafeReadReason } from './safe-read.js';
export { removeTree } from './remove-tree.js';
export { directoryProblem, requireDirectory } from './directory.js';
export { cleanPrivateTempDirs, privateTempDir, processGroupRuns, processRuns, processStartTicks } from './private-temp.js';
