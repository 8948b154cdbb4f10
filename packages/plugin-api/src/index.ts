export { STAGE } from './stage.js';
export { cutCodePoints, cutText, cutTextEnd, cutTextMiddle, cutUtf8, cutUtf8Bytes, cutUtf8BytesEnd, wellFormed } from './text.js';
export { directoryProblem } from './directory.js';
export { requireAbsoluteHome } from './config-home.js';
export type { HomeVariableWords } from './config-home.js';
export { readSettingsText, SETTINGS_MAX_BYTES } from './settings-file.js';
export { connectionErrorWords, systemErrorWords } from './system-error.js';
export { isTerminal, legacyBinding } from './legacy-binding.js';
export { outputFailed, writeOutput } from './standard-output.js';
export { ciInert, escapeUnits, shownJson, shownLine, UNSHOWN_SOURCE } from './terminal-text.js';
export { NAME_NUMBER, nameNumber } from './name-number.js';
export type { Stage } from './stage.js';
export { definePlugin, cordonApi, CORDON_API, PLUGIN_API_VERSION } from './plugin.js';
export type { CordonApi, CordonPaths, CordonPlugin, Logger } from './plugin.js';
export type { HookFacades, HookName, HookTable, TapOnly } from './hooks.js';
export type { CordonServices } from './services.js';
export type { FastCommandApi, RunFastCommand } from './fast-command.js';
export type {
  LedgerCompactedRange,
  LedgerCompaction,
  LedgerCompactResult,
  LedgerHandle,
  LedgerMessage,
  LedgerModelItem,
  LedgerPieceWriter,
  LedgerRangeRequest,
  LedgerRecordInput,
  LedgerRole,
  LedgerService,
  LedgerSession,
  LedgerSessionSelector,
  LedgerUncompactResult,
  VisibleEntry,
} from './services/ledger.js';
export type { ProcessService, StartFailureReport, StartPlace } from './services/process.js';
export type { FileService } from './services/files.js';
export type { NameService } from './services/names.js';
export type { TerminalService } from './services/terminal.js';
export type { UsageService } from './services/usage.js';
export type { RedactService } from './services/redact.js';
export type { MarkerCallFields, TelemetryMarkerEvent, TelemetryMarkerInput, TelemetrySamplerStart, TelemetrySamplerWait, TelemetryService } from './services/telemetry.js';
export type { CanonicalTool, ToolCall, ToolDecision, ToolFeedback, ToolResult, ToolStatus } from './events/tool-call.js';
export type { AuditContext, Violation } from './events/audit.js';
export type { CompactionPlan, CompactionRange } from './events/compact.js';
export type { EndedProcess, GuardChild, GuardEscalation, GuardPlacement, GuardExit, GuardRequest, GuardResult, GuardSpawnOptions, GuardTier, PressureTotals, StallPolicy, TierName } from './events/enforce.js';
export type { Registrar } from './registries/registrar.js';
export type { Dialect, DialectContext, DialectEntry, HookEventKind, HookReply, NativeEvent, NativeLifecycle, NativeToolAfter, NativeToolBefore, PayloadReaders, ProcessInfo, ResultOutcome, WriteKind, WriteTarget } from './registries/dialect.js';
export type { ConfigChange, ConfigDocument, ConfigFormats, ConfigPath, HookCommand, HookInstaller, HookListEditor, HookListLayout, HookScope, RemoveCommandsOptions, InstallContext, InstallPlan, TomlDocument } from './registries/hook-installer.js';
export type { AgentOutput, AgentReport, AgentRunner, AttemptBrief, BriefLimits, FailedVerifier, LaunchPlan, LaunchRequest, RecoveryContext, RunnerEntry, RunnerLimits, RunnerSupport } from './registries/runner.js';
export type { Platform, ProcessTreeSampler, SamplerEntry, TreeReader, TreeReading } from './registries/sampler.js';
export type { ProbeContext, ProbeEntry, ProbeResult } from './registries/probe.js';
export type { ExportOptions, ExportSession, ExporterEntry, ExportSummary, StoredSample, StoredSession, StoredToolCall } from './registries/exporter.js';
export type { ChartRendererEntry } from './registries/chart.js';
export { patchHeaders, patchTargets, trimWhiteSpace } from './patch/index.js';
export type { PatchGrammar, PatchHeader, PatchOperation } from './patch/index.js';
