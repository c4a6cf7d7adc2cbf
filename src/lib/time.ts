// Stored times (integer ms, UTC) as the API writes them: ISO 8601 date-time strings.
export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms == null ? null : iso(ms));
