// Agreement between the engine and human graders: Spearman, quadratic weighted kappa, verdict and per-criterion agreement.

/** Ranks (1-based) with ties given their average rank, as Spearman's rho needs. */
export function ranks(values: number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1].v === order[i].v) j++;
    for (let k = i; k <= j; k++) out[order[k].i] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Pearson's correlation; NaN when either side is constant or the lists are shorter than 2. */
function pearson(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new Error("pearson: lists of different lengths");
  const n = a.length;
  if (n < 2) return Number.NaN;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let sab = 0;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    sa += (a[i] - ma) ** 2;
    sb += (b[i] - mb) ** 2;
  }
  return sa === 0 || sb === 0 ? Number.NaN : sab / Math.sqrt(sa * sb);
}

/** The mean of a list; NaN when it is empty. */
const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);

/** Spearman's rank correlation (Pearson on tie-averaged ranks). */
export function spearman(a: number[], b: number[]): number {
  return pearson(ranks(a), ranks(b));
}

/**
 * Quadratic weighted kappa of two integer ratings on min..max (1 = perfect agreement, 0 = chance).
 * Ratings outside the range are clamped onto it.
 */
export function quadraticWeightedKappa(a: number[], b: number[], min: number, max: number): number {
  if (a.length !== b.length) throw new Error("quadraticWeightedKappa: lists of different lengths");
  const k = max - min + 1;
  const n = a.length;
  if (n === 0 || k < 2) return Number.NaN;
  const clamp = (x: number) => Math.min(max, Math.max(min, Math.round(x))) - min;
  const observed = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const ha = new Array<number>(k).fill(0);
  const hb = new Array<number>(k).fill(0);
  for (let i = 0; i < n; i++) {
    const x = clamp(a[i]);
    const y = clamp(b[i]);
    observed[x][y]++;
    ha[x]++;
    hb[y]++;
  }
  let num = 0;
  let den = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = (i - j) ** 2 / (k - 1) ** 2;
      num += w * observed[i][j];
      den += (w * ha[i] * hb[j]) / n;
    }
  }
  return den === 0 ? (num === 0 ? 1 : Number.NaN) : 1 - num / den;
}

/** The engine's 0–100 score on a human scale min..max, linearly and rounded (no re-ranking: the absolute level counts). */
export function toScale(score: number, min: number, max: number): number {
  return Math.round(min + (score / 100) * (max - min));
}

export interface GradedItem {
  /** The human score on the human scale. */
  human: number;
  /** The engine's 0–100 score. */
  score: number;
  verdict: "pass" | "fail" | "needs_review";
  /** Human per-criterion scores, by criterion title (any case); optional. */
  humanCriteria?: Record<string, number>;
  /** The engine's criteria: score and max_score on the rubric's scale. */
  criteria?: { title: string; score: number; max_score: number }[];
  /** Words in the document, for the word-count baseline. */
  words?: number;
}

export interface AgreementOptions {
  /** The human scale. */
  min: number;
  max: number;
  /** A human score at or above this passes. */
  passAt: number;
}

interface CriterionAgreement {
  title: string;
  n: number;
  spearman: number;
  /** Share of items where the engine's criterion score, rounded to the human scale's step, equals the human one (rounded). */
  exact: number;
  /** Share within one point. */
  adjacent: number;
  meanAbsoluteError: number;
  /** The engine's score less the human one, on average: above 0 the engine is more generous than the graders. */
  meanDifference: number;
}

export interface Agreement {
  n: number;
  spearman: number;
  qwk: number;
  /** needs_review counts as disagreement: the engine did not decide. */
  verdictAgreement: number;
  /** Agreement among the items the engine decided (pass or fail). */
  decidedAgreement: number;
  needsReview: number;
  verdicts: Record<"pass" | "fail" | "needs_review", number>;
  humanPasses: number;
  meanAbsoluteError: number;
  /** The engine's mapped score less the human score, on average (above 0: more generous than the graders). */
  meanDifference: number;
  wordCountSpearman: number | null;
  /**
   * The pass line on the engine's 0–100 score whose pass/fail (score at or above it passes) agrees best with the
   * humans, and that agreement: what a workflow's threshold should be set to for these graders, and how much of the
   * disagreement is the line rather than the ranking. Null for an empty set.
   */
  bestLine: { line: number; agreement: number } | null;
  criteria: CriterionAgreement[];
}

/** Every agreement figure for a graded set. */
export function agreement(items: GradedItem[], opts: AgreementOptions): Agreement {
  const human = items.map((i) => i.human);
  const scores = items.map((i) => i.score);
  const mapped = scores.map((s) => toScale(s, opts.min, opts.max));
  const verdicts = { pass: 0, fail: 0, needs_review: 0 };
  let agree = 0;
  let decided = 0;
  let decidedAgree = 0;
  for (const item of items) {
    verdicts[item.verdict]++;
    const humanPass = item.human >= opts.passAt;
    if (item.verdict === "needs_review") continue;
    decided++;
    if ((item.verdict === "pass") === humanPass) {
      agree++;
      decidedAgree++;
    }
  }
  const words = items.every((i) => typeof i.words === "number") ? items.map((i) => i.words as number) : null;
  return {
    n: items.length,
    spearman: spearman(scores, human),
    qwk: quadraticWeightedKappa(human, mapped, opts.min, opts.max),
    verdictAgreement: items.length ? agree / items.length : Number.NaN,
    decidedAgreement: decided ? decidedAgree / decided : Number.NaN,
    needsReview: verdicts.needs_review,
    verdicts,
    humanPasses: items.filter((i) => i.human >= opts.passAt).length,
    meanAbsoluteError: mean(items.map((i, k) => Math.abs(i.human - mapped[k]))),
    meanDifference: mean(items.map((i, k) => mapped[k] - i.human)),
    wordCountSpearman: words && words.length > 1 ? spearman(words, human) : null,
    bestLine: bestLine(items, opts.passAt),
    criteria: criterionAgreement(items),
  };
}

function bestLine(items: GradedItem[], passAt: number): Agreement["bestLine"] {
  if (items.length === 0) return null;
  // Every line between two neighbouring scores decides alike: try each distinct score, and one above them all.
  const candidates = [...new Set(items.map((i) => i.score)), 101].sort((a, b) => a - b);
  const agreeing = candidates.map((line) => items.filter((i) => i.score >= line === i.human >= passAt).length);
  const top = Math.max(...agreeing);
  const best = candidates.filter((_, k) => agreeing[k] === top);
  // Of equally good lines, the middle one: the least tied to where these few items happen to fall.
  return { line: Math.min(100, best[Math.floor((best.length - 1) / 2)]), agreement: top / items.length };
}

/** A column of human scores names a criterion in any case and spacing ("word_choice" is "Word Choice"), or by the
 * first words of its title ("ideas" is "Ideas and Content"). */
function sameCriterion(title: string, column: string): boolean {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  const [t, c] = [norm(title), norm(column)];
  return t === c || (c.length > 0 && t.startsWith(`${c} `));
}

function criterionAgreement(items: GradedItem[]): CriterionAgreement[] {
  const titles = new Set<string>();
  for (const i of items) for (const t of Object.keys(i.humanCriteria ?? {})) titles.add(t);
  const out: CriterionAgreement[] = [];
  for (const title of titles) {
    const pairs: [number, number][] = [];
    for (const i of items) {
      const h = i.humanCriteria?.[title];
      const c = i.criteria?.find((x) => sameCriterion(x.title, title));
      if (h !== undefined && c) pairs.push([h, c.score]);
    }
    if (pairs.length === 0) continue;
    const hs = pairs.map((p) => p[0]);
    const es = pairs.map((p) => p[1]);
    out.push({
      title,
      n: pairs.length,
      spearman: spearman(es, hs),
      exact: pairs.filter(([h, e]) => Math.round(h) === Math.round(e)).length / pairs.length,
      adjacent: pairs.filter(([h, e]) => Math.abs(h - e) <= 1).length / pairs.length,
      meanAbsoluteError: mean(pairs.map(([h, e]) => Math.abs(h - e))),
      meanDifference: mean(pairs.map(([h, e]) => e - h)),
    });
  }
  return out;
}

/** The figures as plain text lines, for the bench and `assay calibrate`. */
export function formatAgreement(a: Agreement, opts: AgreementOptions): string {
  const f = (x: number | null, d = 3) => (x === null || Number.isNaN(x) ? "n/a" : x.toFixed(d));
  const pct = (x: number) => (Number.isNaN(x) ? "n/a" : `${(100 * x).toFixed(1)} %`);
  const signed = (x: number) => (Number.isNaN(x) ? "n/a" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`);
  const lines = [
    `items                     ${a.n} (human passes at ≥ ${opts.passAt}: ${a.humanPasses})`,
    `Spearman (score, human)   ${f(a.spearman)}`,
    `word-count baseline       ${f(a.wordCountSpearman)}`,
    `QWK on ${opts.min}–${opts.max}${" ".repeat(Math.max(1, 19 - `${opts.min}–${opts.max}`.length))}${f(a.qwk)}  (score/100 × ${opts.max - opts.min}, rounded; mean abs. error ${f(a.meanAbsoluteError, 2)}; engine − human ${signed(a.meanDifference)})`,
    `verdict agreement         ${pct(a.verdictAgreement)}  (pass ${a.verdicts.pass}, fail ${a.verdicts.fail}, needs_review ${a.verdicts.needs_review}; among decided: ${pct(a.decidedAgreement)})`,
  ];
  if (a.bestLine) {
    lines.push(
      `best pass line            ${a.bestLine.line}/100 agrees on ${pct(a.bestLine.agreement)} by score alone (set it with "Pass at ${a.bestLine.line}%." in the workflow's prompt)`,
    );
  }
  for (const c of a.criteria) {
    lines.push(
      `criterion ${c.title.padEnd(15)} Spearman ${f(c.spearman)}, exact ${pct(c.exact)}, within 1 ${pct(c.adjacent)}, mean abs. error ${f(c.meanAbsoluteError, 2)}, engine − human ${signed(c.meanDifference)} (n ${c.n})`,
    );
  }
  return lines.join("\n");
}
