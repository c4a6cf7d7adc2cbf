// `assay calibrate`'s graded folder (src/calibrate.ts readGradedFolder): scores.csv as spreadsheets save it. The
// command end to end, through a server, is test/e2e/calibrate.test.ts.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GradedFolderError, readGradedFolder } from "../src/calibrate";
import { tempDir } from "./helpers";

function folder(csv: string, files: string[]): string {
  const dir = tempDir("assay-graded-csv-");
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), `An essay in ${f}.`);
  }
  writeFileSync(path.join(dir, "scores.csv"), csv);
  return dir;
}

describe("scores.csv", () => {
  test("as a spreadsheet in a comma-decimal locale saves it: a byte-order mark, ';' between fields, '3,5', CRLF", () => {
    // The hand-written reader split on commas only: the whole line was one column, and "the header must name the
    // columns file and score" for a sheet that did.
    const dir = folder("\uFEFFfile;score;max;Ideas\r\nessays/anna.txt;4,5;6;3,5\r\nessays/ben.txt;2;6;1\r\n", ["essays/anna.txt", "essays/ben.txt"]);
    const { docs, scale } = readGradedFolder(dir);
    expect(docs.map((d) => [d.name, d.human, d.humanCriteria])).toEqual([
      ["anna.txt", 4.5, { Ideas: 3.5 }],
      ["ben.txt", 2, { Ideas: 1 }],
    ]);
    expect(scale).toEqual({ min: 0, max: 6, passAt: 4 });
  });

  test("percentages, a quoted filename with a comma, tabs between fields", () => {
    const comma = folder('file,score,max\n"essays/smith, j.txt",85%,100\nessays/lee.txt,40 %,100\n', ["essays/smith, j.txt", "essays/lee.txt"]);
    expect(readGradedFolder(comma).docs.map((d) => [d.name, d.human])).toEqual([
      ["smith, j.txt", 85],
      ["lee.txt", 40],
    ]);
    const tabs = folder("file\tscore\na.txt\t3\nb.txt\t1\n", ["a.txt", "b.txt"]);
    expect(readGradedFolder(tabs).docs.map((d) => d.human)).toEqual([3, 1]);
  });

  test("a mistake names its line, blank lines counted; a score that is no number is refused", () => {
    const dir = folder("file,score\na.txt,3\n\nb.txt,three\n", ["a.txt", "b.txt"]);
    expect(() => readGradedFolder(dir)).toThrow(new GradedFolderError('scores.csv line 4: score "three" is not a number'));
  });
});
