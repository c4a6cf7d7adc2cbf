// An English word list for the places that must tell a word from a fragment or a slip: spelling in the local
// evaluator, and a word a PDF's narrow table cell broke over two lines.

let dictionary: Set<string> | null = null;

/**
 * Whether a lower-case word is in ~275,000 English words (an-array-of-english-words, MIT, from the Letterpress word
 * list; British and American spellings both), loaded on first use: about 0.2 s and 37 MB, once per process or
 * worker.
 */
export function isEnglishWord(word: string): boolean {
  dictionary ??= new Set(require("an-array-of-english-words/index.json") as string[]);
  return dictionary.has(word);
}
