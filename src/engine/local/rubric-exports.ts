// Reads a rubric exported as data: an LMS's or an API's JSON, or XML that is data, which extraction gives as "path:
// value" lines ("criteria[0].name: Thesis"). Canvas, Moodle, Blackboard, D2L and hand-made exports alike.
import type { Section } from "../../extract/types";
import { type Candidate, TOTAL_ROW, tidyTitle } from "./rubric-words";

const FIELD = {
  title: /^(?:name|title|criterion|criterion_name|label|header)$/i,
  points: /^(?:points|points_possible|max_points|maxpoints|max_score|maxscore|possible|marks|max_marks|weight|score|value|numeric_?points)$/i,
  description: /^(?:description|long_description|details|desc|text|descriptor|definition)$/i,
  // (XML repeats one element per level, often inside a list of them: "levels.level[0]"; Blackboard's are "Cells.Cell".)
  levels: /^(?:levels?|ratings?|scale|bands?|descriptors?|performance_levels?|cells?)$/i,
};
const PATH_LINE = /^((?:[\w$-]+|\[\d+\])(?:\.[\w$-]+|\[\d+\])*):(?:\s(.*))?$/;
const GROUPS = /group|section|part|categor|domain/i;
// A number of points as exported: "4", "10.0", "4 pts".
const EXPORTED_POINTS = /^\s*(\d+(?:\.\d+)?)\s*(?:pts?\.?|points?|marks?)?\s*$/i;

/** The "path: value" lines of a text that is data (JSON, or XML that is data: most of its lines), else null. */
export function dataFields(sections: Section[]): RegExpExecArray[] | null {
  const lines = sections.flatMap((s) => s.text.split("\n"));
  const fields = lines.map((l) => PATH_LINE.exec(l.trim())).filter((m): m is RegExpExecArray => m !== null);
  return fields.length < 4 || fields.length * 2 < lines.filter((l) => l.trim() !== "").length ? null : fields;
}

/**
 * Criteria of a rubric exported as data: the elements of the arrays whose objects name criteria ("name", "title",
 * Blackboard's "Header"; or a "description" beside a "long_description" or over levels of its own), with their points
 * and their levels ("levels", "ratings", "cells": a label or description and points each; or a map of points to
 * descriptions, "levels.4: Excellent"). Null when the text is not such an export.
 */
export function exportedCriteria(fields: RegExpExecArray[]): Candidate[] | null {
  // The elements of each array of objects and their fields: "criteria[0]" → name, points … A field may be nested
  // ("Header.value" in an XML export whose values are attributes: the field is "Header").
  const elements = new Map<string, Map<string, string>>();
  for (const [, path, value = ""] of fields) {
    const m = /^(.*\[\d+\])\.([\w$.-]+)$/.exec(path);
    if (!m) continue;
    const element = elements.get(m[1]) ?? new Map<string, string>();
    element.set(m[2].replace(/\.(?:value|text|_text)$/i, ""), value);
    elements.set(m[1], element);
  }
  const arrayOf = (element: string) => element.replace(/\[\d+\]$/, "");
  // Arrays alike in every record ("groups[0].criteria", "groups[1].criteria") are read as one.
  const shapeOf = (element: string) => arrayOf(element).replace(/\[\d+\]/g, "[]");
  const isLevels = (path: string) => path.split(".").some((part) => FIELD.levels.test(part));
  // Each element's levels: the elements below it on a path through "levels", "ratings" … (one pass, for large exports).
  const levelsBelow = new Map<string, [string, Map<string, string>][]>();
  for (const [e, f] of elements) {
    const path = arrayOf(e);
    for (let at = path.indexOf("]."); at >= 0; at = path.indexOf("].", at + 1)) {
      const ancestor = path.slice(0, at + 1);
      if (!elements.has(ancestor) || !isLevels(path.slice(at + 2))) continue;
      const below = levelsBelow.get(ancestor) ?? [];
      below.push([e, f]);
      levelsBelow.set(ancestor, below);
    }
  }
  const pointsIn = (v: string | undefined, least: number) => {
    const n = Number(EXPORTED_POINTS.exec(v ?? "")?.[1] ?? Number.NaN);
    return Number.isFinite(n) && n >= least && n <= 1000 ? n : null;
  };
  // (A level may be worth nothing, "No marks"; a criterion is worth something.)
  const pointsOf = (f: Map<string, string>, least = Number.MIN_VALUE) => pointsIn([...f].find(([k]) => FIELD.points.test(k))?.[1], least);
  // Its levels as elements of their own, or as a map of points to descriptions ("levels.4: Excellent – …").
  const levelsOf = (element: string, f: Map<string, string>) => {
    const below = (levelsBelow.get(element) ?? []).map(([, lf]) => {
      // A level's name ("Full Marks"), then its words ("long_description", Moodle's "definition", an XML level's text).
      const name = titleOf(lf);
      const words = [...lf].filter(([k, v]) => FIELD.description.test(k) && v !== "" && v !== name).map(([, v]) => v);
      return { value: pointsOf(lf, 0) ?? Number.NaN, descriptor: [name, ...words].filter(Boolean).join(": ") };
    });
    const mapped = [...f]
      .map(([k, v]) => ({ key: /^([\w$-]+)\.(\d+(?:\.\d+)?)$/.exec(k), v }))
      .filter(({ key }) => key !== null && FIELD.levels.test(key[1]))
      .map(({ key, v }) => ({ value: Number(key?.[2]), descriptor: v }));
    return [...below, ...mapped].filter((l) => Number.isFinite(l.value));
  };
  const hasLevels = (element: string, f: Map<string, string>) =>
    (levelsBelow.get(element)?.length ?? 0) > 0 || [...f.keys()].some((k) => /^[\w$-]+\.\d/.test(k) && FIELD.levels.test(k.split(".")[0]));
  // A criterion's "description" is its title beside a longer one (Canvas) or over its own levels (Moodle).
  function titleOf(f: Map<string, string>, element?: string): string | undefined {
    const named = [...f].find(([k]) => FIELD.title.test(k))?.[1];
    return named ?? (f.has("long_description") || (element !== undefined && hasLevels(element, f)) ? f.get("description") : undefined);
  }
  // The criteria: the outermost arrays (of one shape) whose elements carry titles and points, descriptions or levels;
  // not an array of levels (a group's "Levels" named once for its criteria).
  const shapes = [...new Set([...elements.keys()].map(shapeOf))]
    .filter((a) => !FIELD.levels.test(a.split(".").at(-1) ?? ""))
    .sort((a, b) => a.length - b.length);
  const holdsCriteria = (a: string) => {
    const items = [...elements].filter(([e]) => shapeOf(e) === a);
    return (
      items.length >= 2 &&
      items.every(([e, f]) => titleOf(f, e)) &&
      items.some(([e, f]) => pointsOf(f) !== null || [...f.keys()].some((k) => FIELD.description.test(k)) || hasLevels(e, f))
    );
  };
  const outer = shapes.find(holdsCriteria);
  // Groups of criteria (D2L's "CriteriaGroups", sections of a form) hold the criteria one level down.
  const criteriaShape =
    outer !== undefined && GROUPS.test(outer.split(".").at(-1) ?? "")
      ? (shapes.find((a) => a.startsWith(`${outer}[].`) && holdsCriteria(a)) ?? outer)
      : outer;
  if (criteriaShape === undefined) return null;
  const out: Candidate[] = [];
  for (const [element, f] of elements) {
    if (shapeOf(element) !== criteriaShape) continue;
    const title = tidyTitle(titleOf(f, element) ?? "");
    if (!title || TOTAL_ROW.test(title)) continue;
    const description = [...f]
      .filter(([k]) => FIELD.description.test(k) && f.get(k) !== titleOf(f, element))
      .map(([, v]) => v)
      .join("\n");
    const levels = levelsOf(element, f);
    const distinct = new Set(levels.map((l) => l.value)).size === levels.length && levels.length >= 2;
    const top = distinct ? Math.max(...levels.map((l) => l.value)) : null;
    const points = pointsOf(f) ?? top;
    out.push({
      title,
      description,
      points,
      ...(distinct && points === top ? { levels: levels.sort((a, b) => a.value - b.value) } : {}),
    });
  }
  return out.length >= 2 ? out : null;
}
