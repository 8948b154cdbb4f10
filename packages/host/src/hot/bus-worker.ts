// Entry of the hook's bus thread when the hook runs from the module graph rather than the
// bundle (`bus-thread.ts`): the bundle's own `runBusWorker` is used otherwise.
import { runBusWorker } from './bus-thread.js';

void runBusWorker();
