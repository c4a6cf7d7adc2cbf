// The agreement statistics bench/quality.ts reports: Spearman with ties, quadratic weighted kappa, verdict and per-criterion agreement.
import { describe, expect, test } from "bun:test";
import { agreement, formatAgreement, quadraticWeightedKappa, ranks, spearman, toScale } from "../../src/engine/agreement";
import { statedPassShare } from "../../src/engine/local/verdict";

describe("agreement", () => {
  test("ranks average ties; Spearman is 1 for any increasing relation and -1 for a decreasing one", () => {
    expect(ranks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1);
    expect(Number.isNaN(spearman([1, 1, 1], [1, 2, 3]))).toBe(true);
  });

  test("QWK: 1 for identical ratings, below 0 for reversed ones, and an off-by-one costs less than off-by-many", () => {
    const human = [0, 1, 2, 3, 4, 4, 2];
    expect(quadraticWeightedKappa(human, human, 0, 4)).toBeCloseTo(1);
    expect(
      quadraticWeightedKappa(
        human,
        human.map((x) => 4 - x),
        0,
        4,
      ),
    ).toBeLessThan(0);
    const near = quadraticWeightedKappa(
      human,
      human.map((x) => Math.min(4, x + 1)),
      0,
      4,
    );
    const far = quadraticWeightedKappa(
      human,
      human.map((x) => Math.min(4, x + 3)),
      0,
      4,
    );
    expect(near).toBeGreaterThan(far);
    // A textbook case (Cohen 1968 style): hand-computed value.
    expect(quadraticWeightedKappa([0, 1, 2], [0, 2, 2], 0, 2)).toBeCloseTo(0.8, 5);
  });

  test("the engine's 0–100 maps linearly onto the human scale; verdicts count needs_review as undecided", () => {
    expect(toScale(100, 0, 24)).toBe(24);
    expect(toScale(50, 0, 24)).toBe(12);
    const a = agreement(
      [
        { human: 24, score: 100, verdict: "pass", words: 300, humanCriteria: { ideas: 3 }, criteria: [{ title: "Ideas", score: 3, max_score: 3 }] },
        { human: 6, score: 20, verdict: "fail", words: 50, humanCriteria: { ideas: 1 }, criteria: [{ title: "Ideas", score: 0, max_score: 3 }] },
        {
          human: 16,
          score: 60,
          verdict: "needs_review",
          words: 150,
          humanCriteria: { ideas: 2 },
          criteria: [{ title: "Ideas", score: 2, max_score: 3 }],
        },
      ],
      { min: 0, max: 24, passAt: 16 },
    );
    expect(a.verdictAgreement).toBeCloseTo(2 / 3);
    expect(a.decidedAgreement).toBe(1);
    expect(a.needsReview).toBe(1);
    expect(a.spearman).toBeCloseTo(1);
    expect(a.wordCountSpearman).toBeCloseTo(1);
    expect(a.criteria).toEqual([expect.objectContaining({ title: "ideas", n: 3, exact: 2 / 3, adjacent: 1 })]);
    expect(formatAgreement(a, { min: 0, max: 24, passAt: 16 })).toContain("QWK on 0–24");
    // Which way the engine errs: scores 24, 5 and 14 on the human scale against 24, 6 and 16 (−1 and −2: harsher), and
    // the criterion 3, 0, 2 against 3, 1, 2.
    expect(a.meanDifference).toBeCloseTo(-1);
    expect(a.criteria[0].meanDifference).toBeCloseTo(-1 / 3);
    const text = formatAgreement(a, { min: 0, max: 24, passAt: 16 });
    expect(text).toContain("engine − human −1.00)");
    expect(text).toContain("engine − human −0.33 (n 3)");
  });

  test("human score columns find their criterion in any case and spacing, or by the first words of its title", () => {
    const item = (human: Record<string, number>) => ({
      human: 10,
      score: 50,
      verdict: "fail" as const,
      humanCriteria: human,
      criteria: [
        { title: "Ideas and Content", score: 4, max_score: 6 },
        { title: "Word Choice", score: 3, max_score: 6 },
        { title: "Voice", score: 5, max_score: 6 },
      ],
    });
    const a = agreement([item({ ideas: 4, word_choice: 3, "VOICE ": 5, vo: 5 })], { min: 0, max: 24, passAt: 16 });
    expect(a.criteria.map((c) => [c.title, c.n, c.exact])).toEqual([
      ["ideas", 1, 1],
      ["word_choice", 1, 1],
      ["VOICE ", 1, 1],
    ]);
  });

  test("the best pass line is the threshold on the engine's score that agrees most with the humans, and is printed as a prompt sentence", () => {
    const item = (human: number, score: number) => ({ human, score, verdict: "fail" as const });
    // Humans pass at 16. Lines at 56 and at 80 agree on 5 of 6 (one passes the 14 at 70, the other fails the 18 at 56);
    // of equally good lines the middle one, here the lower of two.
    const items = [item(4, 20), item(10, 40), item(18, 56), item(14, 70), item(20, 80), item(24, 95)];
    expect(agreement(items, { min: 0, max: 24, passAt: 16 }).bestLine).toEqual({ line: 56, agreement: 5 / 6 });
    // One line (above 40, at most 56) agrees with every verdict.
    const clean = agreement([item(4, 20), item(10, 40), item(18, 56), item(20, 80)], { min: 0, max: 24, passAt: 16 });
    expect(clean.bestLine).toEqual({ line: 56, agreement: 1 });
    // Nobody passes: the best line fails everyone.
    expect(agreement([item(4, 20), item(10, 40)], { min: 0, max: 24, passAt: 16 }).bestLine).toEqual({ line: 100, agreement: 1 });
    expect(formatAgreement(clean, { min: 0, max: 24, passAt: 16 })).toContain(
      'best pass line            56/100 agrees on 100.0 % by score alone (set it with "Pass at 56%."',
    );
    expect(agreement([], { min: 0, max: 24, passAt: 16 }).bestLine).toBeNull();
    // The sentence it prints is one the engine reads as the workflow's pass line.
    expect(statedPassShare("Grade the essay.\n\nPass at 56%.", 12)).toBeCloseTo(0.56);
  });
});
