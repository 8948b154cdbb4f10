import type { FileService, HookTable, LedgerService, ProcessService, TelemetryService, UsageService } from '@cordon/plugin-api';
import { stateDirProblem } from '../envelope/state/state-dir-target.js';
import { usageMessage } from '../cli/usage-message.js';
import { createLedgerService } from '../ledger/service.js';
import { startFailureReport, startProblemReport } from '../process/start-failure.js';
import { createTelemetryService } from '../telemetry/service.js';

export { startFailureReport };

/** The services of `api.services` that carry code of their own: the ledger, telemetry, and the words for a command that cannot start. */
export interface HostServices {
  readonly ledger: LedgerService;
  readonly telemetry: TelemetryService;
  readonly describeStartFailure: ProcessService['describeStartFailure'];
  readonly startProblem: NonNullable<ProcessService['startProblem']>;
  /** `api.services.usage.message`: oclif's parse errors in the host's words (cli/usage-message.ts). */
  readonly usageMessage: UsageService['message'];
  /** `api.services.files.stateDirProblem` (envelope/state/state-dir-target.ts). */
  readonly stateDirProblem: NonNullable<FileService['stateDirProblem']>;
}

/**
 * Builds the ledger service (compactions fire `hooks.compact`), the telemetry service (files
 * under `dataDir`), `process.describeStartFailure` and `usage.message` one plugin's api lends. Only command plugins call them (`cordon wrap`, `cordon
 * pcodx`); the fast routes (hook, check, control run) build the api for every call and never do,
 * so they load this module from a bundle of its own on first use (./load-services.ts).
 */
export function createHostServices(hooks: { readonly compact: Pick<HookTable['compact'], 'promise'> }, dataDir: string): HostServices {
  return { ledger: createLedgerService(hooks), telemetry: createTelemetryService(dataDir), describeStartFailure: startFailureReport, startProblem: startProblemReport, usageMessage: (error, command) => usageMessage(error, command), stateDirProblem: (path) => stateDirProblem(path) };
}
