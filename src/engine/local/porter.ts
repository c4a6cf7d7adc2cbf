// The Porter (1980) stemmer, as SQLite's FTS5 "porter" tokenizer applies it, so the local evaluator folds words the way the index does.

// No stemming package is installed and the algorithm is short and fixed; this follows
// M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980, step by step.

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** m(): the number of vowel-consonant sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  for (;;) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) return n;
    while (i < end && isConsonant(w, i)) i++;
    n++;
    if (i >= end) return n;
  }
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, end = w.length): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 3) || isConsonant(w, end - 2) || !isConsonant(w, end - 1)) return false;
  const c = w[end - 1];
  return c !== "w" && c !== "x" && c !== "y";
}

/** Replace `suffix` by `repl` when the remaining stem has measure > min. Returns the new word, or null when the suffix is absent. */
function replaceIf(w: string, suffix: string, repl: string, min: number): string | null {
  if (!w.endsWith(suffix)) return null;
  const stemEnd = w.length - suffix.length;
  return measure(w, stemEnd) > min ? w.slice(0, stemEnd) + repl : w;
}

const STEP2: [string, string][] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];
const STEP3: [string, string][] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];
const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

export function porterStem(word: string): string {
  let w = word;
  if (w.length <= 2) return w;

  // Step 1a
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (!w.endsWith("ss") && w.endsWith("s")) w = w.slice(0, -1);

  // Step 1b
  let extra = false;
  if (w.endsWith("eed")) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && endsCvc(w)) w += "e";
  }

  // Step 1c
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;

  // Step 2 (the longest matching suffix decides; the table is ordered so the first match is it)
  for (const [suffix, repl] of STEP2) {
    if (w.endsWith(suffix)) {
      w = replaceIf(w, suffix, repl, 0) ?? w;
      break;
    }
  }

  // Step 3
  for (const [suffix, repl] of STEP3) {
    if (w.endsWith(suffix)) {
      w = replaceIf(w, suffix, repl, 0) ?? w;
      break;
    }
  }

  // Step 4
  let matched = "";
  for (const suffix of STEP4) if (w.endsWith(suffix) && suffix.length > matched.length) matched = suffix;
  if (matched) {
    const stemEnd = w.length - matched.length;
    const ok = measure(w, stemEnd) > 1 && (matched !== "ion" || /[st]$/.test(w.slice(0, stemEnd)));
    if (ok) w = w.slice(0, stemEnd);
  }

  // Step 5a
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // Step 5b
  if (measure(w, w.length) > 1 && endsDoubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}
