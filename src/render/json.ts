// JSON renderer: the output value itself, pretty-printed UTF-8, so the file parses back to exactly what the run returned.
import type { RenderedFile } from "../engine/types";
import { utf8 } from "./common";

export function renderJson(value: unknown): RenderedFile {
  return {
    bytes: utf8.encode(`${JSON.stringify(value, null, 2)}\n`),
    mime_type: "application/json",
    extension: "json",
  };
}
