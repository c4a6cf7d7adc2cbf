// The word list is searched by halves in the package's own text: every word of the list must be found, from the first
// to the last, and no near miss (a letter more, a letter less, another first letter) that the list does not hold.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { isEnglishWord } from "../../src/lib/english-words";

const words: string[] = JSON.parse(
  readFileSync(require.resolve("an-array-of-english-words/package.json").replace(/package\.json$/, "index.json"), "utf8"),
);
const listed = new Set(words);

test("every word of the list is an English word, the first and the last included", () => {
  expect(words.length).toBeGreaterThan(270_000);
  expect(words.filter((w) => !isEnglishWord(w))).toEqual([]);
  expect([words[0], words.at(-1)].map((w) => isEnglishWord(w ?? ""))).toEqual([true, true]);
});

test("a near miss of any word is found only when the list holds it", () => {
  const wrong: string[] = [];
  for (let i = 0; i < words.length; i += 7) {
    const w = words[i]!;
    for (const probe of [`${w}x`, w.slice(1), w.slice(0, -1), `q${w}`, `${w}zz`]) if (isEnglishWord(probe) !== listed.has(probe)) wrong.push(probe);
  }
  expect(wrong).toEqual([]);
  // Before the first word, after the last, and what is no word at all.
  for (const probe of ["", "A", "Patience", "zzzzzz", "a-b", '"', ",", "]"]) expect(isEnglishWord(probe)).toBe(false);
  for (const probe of ["patience", "recieved", "received"]) expect(isEnglishWord(probe)).toBe(probe !== "recieved");
});
