// An English word list for the places that must tell a word from a fragment or a slip: spelling in the local
// evaluator, and a word a PDF's narrow table cell broke over two lines.
import { readFileSync } from "node:fs";
// Embedded in the compiled binary as a file (a path there and in dev), read on first use.
import wordsPath from "an-array-of-english-words/index.json" with { type: "file" };
import { memoized } from "./memoized.ts";

let list: string | null = null;

/**
 * Whether a lower-case word is in ~275,000 English words (an-array-of-english-words, MIT, from the Letterpress word
 * list; British and American spellings both). The list is kept as the package's own text, `["a","aa",…]` (sorted,
 * lower-case a–z, nothing escaped), and searched by halves: 3.4 MB once per process or worker, read in a few
 * milliseconds, where a Set of the words took 37 MB and 0.2 s.
 */
// (Answers are remembered: an essay repeats most of its words, and a search by halves costs ~1 µs, a Map hit ~0.05 µs.)
export const isEnglishWord: (word: string) => boolean = memoized(inList, 50_000);

function inList(word: string): boolean {
  list ??= readFileSync(wordsPath as unknown as string, "latin1");
  const text = list;
  // Each entry is `"word"` after a delimiter, `[` for the first and `,` for the others. Invariant: the delimiter of
  // the entry sought, if it is there, lies in [lo, hi).
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = mid === 0 ? 0 : text.indexOf(',"', mid);
    if (at < 0 || at >= hi) {
      hi = mid;
      continue;
    }
    const end = text.indexOf('"', at + 2);
    const entry = text.slice(at + 2, end);
    if (entry === word) return true;
    if (entry < word) lo = end + 1;
    else hi = mid;
  }
  return false;
}
