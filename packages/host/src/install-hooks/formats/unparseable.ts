import { CordonError, ERROR_CODES } from '../../errors/index.js';

/** The error every editor throws for a file that does not parse: it names the file and says it was left alone. */
export function unparseable(path: string, format: string, detail: string): CordonError {
  return new CordonError(ERROR_CODES.CONFIG_UNPARSEABLE, `${path} is not valid ${format} (${detail}); refusing to edit it, the file is left untouched`, {
    details: { path, format, detail },
  });
}
