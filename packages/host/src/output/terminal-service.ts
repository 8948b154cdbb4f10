import type { TerminalService } from '@cordon/plugin-api';
import { shownJson } from './json-text.js';
import { terminalLines } from './terminal.js';

/** `api.services.terminal`, the same object on every route that lends plugins services (the plugin host, the fast ledger commands). */
export const TERMINAL_SERVICE: TerminalService = Object.freeze({ lines: terminalLines, json: shownJson });
