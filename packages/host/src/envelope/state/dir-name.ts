/** Name of the state directory at the work-tree root (docs/ARCHITECTURE.md "Data"); its own module so the hook can name it without loading the store. */
export const CORDON_DIR = '.cordon';
