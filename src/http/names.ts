// The one rule for a resource's name (workflows, reference documents, API keys): trimmed first, then 1 to `max`
// characters without control characters, else 400 validation_error naming the field.
import { ApiError } from "./errors";

export function checkName(raw: string, max: number, param = "name"): string {
  const name = raw.trim();
  if (!name) throw new ApiError(400, "validation_error", `${param} must not be empty`, param);
  if (name.length > max) throw new ApiError(400, "validation_error", `${param} must be at most ${max} characters`, param);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters (NUL, escapes) is the point
  if (/[\x00-\x1f\x7f]/.test(name)) throw new ApiError(400, "validation_error", `${param} must not contain control characters`, param);
  return name;
}
