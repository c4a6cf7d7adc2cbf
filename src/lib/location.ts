// One place that turns an evidence Location into the short human label every renderer prints ("p. 3", "sheet Scores, row 4").
import type { Location } from "../extract/types";

/**
 * Formats a Location as a short label. Only the fields that are set are printed, in a fixed
 * order (page or slide first, then sheet/row, then the named part), so the same evidence reads
 * the same in Markdown, Word, Excel and CSV. An empty location gives "".
 */
export function formatLocation(location: Location | null | undefined): string {
  if (!location) return "";
  const parts: string[] = [];
  if (isPositive(location.page)) parts.push(`p. ${location.page}`);
  if (isPositive(location.slide)) parts.push(`slide ${location.slide}`);
  if (typeof location.sheet === "string" && location.sheet !== "") parts.push(`sheet ${location.sheet}`);
  if (isPositive(location.row)) parts.push(`row ${location.row}`);
  if (typeof location.heading === "string" && location.heading !== "") parts.push(`“${location.heading}”`);
  if (typeof location.section === "string" && location.section !== "") parts.push(location.section);
  return parts.join(", ");
}

// Providers write these numbers; a 0, negative or non-number value would print a misleading label.
function isPositive(n: unknown): n is number {
  return typeof n === "number" && Number.isFinite(n) && n > 0;
}
