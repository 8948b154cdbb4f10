/** File name of the telemetry database inside the data directory. */
export const TELEMETRY_DB_FILE = 'telemetry.sqlite3';
