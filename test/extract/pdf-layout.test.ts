// Tables in PDF text, rebuilt from where PDFium's text runs sit: what is a table and what is not.
import { describe, expect, test } from "bun:test";
import { extract } from "../../src/extract/index.ts";
import { mayHoldTable, type TextRun, textWithTables, withParagraphBreaks } from "../../src/extract/pdf-layout.ts";

const LINE = 12; // a run's height; lines of a paragraph sit 14 apart, rows of a table further

/** A run of `text` from x `left` on the line whose top is `top`, about 5 units a character wide. */
const run = (text: string, left: number, top: number, width = text.length * 5): TextRun => ({
  left,
  right: left + width,
  top,
  bottom: top - LINE,
  text,
});

/** One line of a three-column table: the cells' runs at x 50, 200 and 350. */
const row = (cells: string[], top: number) => cells.map((text, i) => run(text, 50 + 150 * i, top));

describe("textWithTables", () => {
  test("a table's rows come back as ' | ' lines, each cell's wrapped lines joined, whatever order the runs arrive in", () => {
    const runs = [
      run("Title of the rubric", 50, 800),
      ...row(["Criterion", "Excellent (3)", "Poor (1)"], 760),
      // A row whose middle cell wraps over two lines (the others centred beside it), the first ending in a hyphen
      // PDFium marks as ending its line inside a word.
      run("Thesis", 50, 720),
      run("A precise, well\uFFFE", 200, 727),
      run("argued claim.", 200, 713),
      run("No claim.", 350, 720),
      ...row(["Evidence", "Facts support it.", "None."], 680),
      run("A closing paragraph of ordinary prose under the table.", 50, 620, 400),
    ];
    expect(textWithTables([...runs].reverse())?.text).toBe(
      [
        "Title of the rubric",
        // (A table is a block of its own, as between a DOCX's paragraphs.)
        "",
        "Criterion | Excellent (3) | Poor (1)",
        "Thesis | A precise, well\uFFFEargued claim. | No claim.",
        "Evidence | Facts support it. | None.",
        "",
        "A closing paragraph of ordinary prose under the table.",
      ].join("\n"),
    );
    expect(mayHoldTable(runs)).toBe(true);
  });

  test("justified lines (spaced apart) that PDFium hands over in two touching runs are prose, not a two-column table", () => {
    const runs: TextRun[] = [];
    // Where the line breaks into two runs moves a little from line to line; the runs touch.
    const splits = [200, 201, 199.5, 200.5, 200];
    splits.forEach((x, i) => {
      runs.push(run("a justified line of prose", 50, 700 - 20 * i, x - 50));
      runs.push(run("in two runs", x, 700 - 20 * i, 450 - x));
    });
    expect(mayHoldTable(runs)).toBe(false);
    expect(textWithTables(runs)).toBeNull();
  });

  test("a bulleted or numbered list is not a table: its markers are not cells", () => {
    const runs = ["First item of the list", "Second item", "Third item", "Fourth item"].flatMap((t, i) => [
      run(i % 2 ? "•" : `${i + 1}.`, 50, 700 - 30 * i, 5),
      run(t, 80, 700 - 30 * i),
    ]);
    expect(textWithTables(runs)).toBeNull();
  });

  test("two columns of prose side by side stay prose; two columns of labels beside text, three rows or more, are a table", () => {
    const long = "words ".repeat(20).trim();
    const prose = [0, 1, 2].flatMap((i) => [run(long, 50, 700 - 60 * i, 230), run(long, 320, 700 - 60 * i, 230)]);
    expect(textWithTables(prose)).toBeNull();
    const labels = ["Skewness", "Kurtosis", "Average path length"].flatMap((label, i) => [
      run(label, 50, 700 - 30 * i, 120),
      run(`${i + 1}.5 2.${i} 3.1`, 300, 700 - 30 * i),
    ]);
    expect(textWithTables(labels)?.text).toBe("Skewness | 1.5 2.0 3.1\nKurtosis | 2.5 2.1 3.1\nAverage path length | 3.5 2.2 3.1");
    // Two such rows are not enough to tell a table from two captions side by side.
    expect(textWithTables(labels.slice(0, 4))).toBeNull();
  });

  test("a word PDFium splits into two runs with no room between them stays one word; a gap is a space", () => {
    const runs = [
      run("Suddenly some ", 50, 700, 70),
      run("J", 120, 700, 3),
      run("apanese text:", 123.5, 700, 60),
      ...row(["Cell A", "Cell B", "Cell C"], 660),
      ...row(["Cell D", "Cell E", "Cell F"], 630),
      // A browser's PDF draws a cell's closing full stop as a run of its own, a little lower and just after the word.
      run(".", 380.5, 627, 2),
    ];
    expect(textWithTables(runs)?.text).toBe("Suddenly some Japanese text:\n\nCell A | Cell B | Cell C\nCell D | Cell E | Cell F.");
  });

  test("a header of level numbers over its rows is the table's header; a table that runs onto the next page goes on there", () => {
    // "Trait | 3 | 2 | 1" : its number cells alone would not make a row, and a run of rows that began with it was lost.
    const page1 = [
      run("Traits", 50, 800),
      ...row(["Trait", "3", "2"], 760),
      ...row(["Ideas", "Clearly focused on the topic.", "Somewhat focused."], 720),
      ...row(["Style", "Varied sentences.", "Clear sentences."], 680),
    ];
    const first = textWithTables(page1);
    expect(first?.text).toBe(
      [
        "Traits",
        "",
        "Trait | 3 | 2",
        "Ideas | Clearly focused on the topic. | Somewhat focused.",
        "Style | Varied sentences. | Clear sentences.",
      ].join("\n"),
    );
    // The page ends with the table: its last row, alone at the top of the next page, is a row of it.
    expect(first?.last).not.toBeNull();
    const page2 = [...row(["Conventions", "Few errors.", "Some errors."], 800), run("Notes under the table, as prose.", 50, 740, 300)];
    expect(textWithTables(page2)).toBeNull();
    expect(mayHoldTable(page2, first?.last ?? null)).toBe(true);
    const second = textWithTables(page2, first?.last ?? null);
    expect(second?.text).toBe("Conventions | Few errors. | Some errors.\n\nNotes under the table, as prose.");
    expect(second?.last).toBeNull();
  });

  test("rows with no white between them are parted by the borders drawn between them; an underline parts nothing", () => {
    // Three rows of two lines each, every line 14 apart (no padding, no paragraph spacing): by the white alone, one strip.
    const lines = (cells: string[][], top: number) => cells.flatMap((cell, i) => cell.map((text, k) => run(text, 50 + 150 * i, top - 14 * k)));
    const runs = [
      ...lines([["Criterion"], ["Excellent (3)"], ["Poor (1)"]], 800),
      ...lines([["Thesis", "statement"], ["A precise claim", "argued well."], ["No claim."]], 786),
      ...lines([["Evidence"], ["Facts support", "every point."], ["None."]], 758),
    ];
    const border = (y: number) => ({ left: 45, right: 500, top: y + 0.5, bottom: y - 0.5 });
    expect(textWithTables(runs)).toBeNull();
    const rules = [border(801), border(787.5), border(759.5), border(730)];
    expect(mayHoldTable(runs, null, rules)).toBe(true);
    expect(textWithTables(runs, null, rules)?.text).toBe(
      [
        "Criterion | Excellent (3) | Poor (1)",
        "Thesis statement | A precise claim argued well. | No claim.",
        "Evidence | Facts support every point. | None.",
      ].join("\n"),
    );
    // A line under words, the words just above it: an underline, not a border.
    const underlined = [...runs, run("Notes", 50, 716, 25)];
    expect(
      textWithTables(underlined, null, [...rules, { left: 50, right: 75, top: 703.5, bottom: 703 }])
        ?.text.split("\n")
        .at(-1),
    ).toBe("Notes");
  });

  test("between borders, a label beside a number, or beside a description of more than 25 words, is a row", () => {
    const long =
      "A statement of need that names the problem, the people it touches, the evidence for it and why this project, now, is the way to meet it in full.";
    const runs = [
      run("Requirement", 50, 800),
      run("Points", 350, 800),
      run("Summary of the plot", 50, 780),
      run("25", 350, 780),
      run("Statement of need", 50, 760),
      run(long.slice(0, long.indexOf(" the evidence")), 200, 760, 250),
      run(long.slice(long.indexOf(" the evidence") + 1), 200, 746, 250),
      run("Spelling", 50, 726),
      run("10", 350, 726),
    ];
    const rules = [802, 782, 762, 728, 710].map((y) => ({ left: 45, right: 500, top: y + 0.5, bottom: y - 0.5 }));
    expect(textWithTables(runs)).toBeNull();
    expect(textWithTables(runs, null, rules)?.text).toBe(
      ["Requirement | Points", "Summary of the plot | 25", `Statement of need | ${long}`, "Spelling | 10"].join("\n"),
    );
  });
});

describe("words a narrow column broke", () => {
  test("a word broken without a hyphen where a cell's line runs out is one word again; two words stay two", () => {
    // The first column is 14 letters wide: "Differentiation" and "Outstanding" do not fit and break where the line
    // ends; "in" over "to" reaches the edge too, but they are two words of their own.
    const runs = [
      ...row(["Criterion", "Excellent (3)", "Poor (1)"], 760),
      run("Differentiatio", 50, 720),
      run("n", 50, 706),
      run("Outstanding", 200, 720),
      run("None.", 350, 720),
      run("Outstand", 50, 680, 70),
      run("ing work", 50, 666),
      run("Goes in", 200, 680),
      run("None.", 350, 680),
      run("Handed in", 50, 640, 70),
      run("to detail.", 50, 626),
      run("Clear.", 200, 640),
      run("None.", 350, 640),
    ];
    expect(textWithTables(runs)?.text.split("\n")).toEqual([
      "Criterion | Excellent (3) | Poor (1)",
      "Differentiation | Outstanding | None.",
      "Outstanding work | Goes in | None.",
      "Handed in to detail. | Clear. | None.",
    ]);
  });

  test("a rubric printed by LibreOffice with columns too narrow for its words reads them whole", async () => {
    const file = "lesson-plan-narrow-columns-libreoffice.pdf";
    const { text } = await extract(await Bun.file(new URL(`../fixtures/rubrics/${file}`, import.meta.url)).bytes(), { filename: file });
    // ("Distinguishe d (4)", "Unsatisfacto ry (1)", "Differentiatio n": the criterion was named so.)
    expect(text).toContain("Criteria | Distinguished (4) | Proficient (3) | Basic (2) | Unsatisfactory (1)");
    expect(text).toContain("\nDifferentiation | Specific supports");
  });
});

describe("withParagraphBreaks", () => {
  test("a blank line goes where the white above a line is wider than a paragraph's line spacing; nothing else moves", () => {
    // Lines 14 apart (a gap of 2), a paragraph's break 24 apart (a gap of 12).
    const tops = [700, 686, 672, 648, 634, 610];
    const boxes = tops.map((top) => run("a line of text", 50, top, 300));
    const text = ["One first line", "one second line.", "One third line.", "Two first line", "two last line.", "Three."].join("\r\n");
    expect(withParagraphBreaks(text, boxes)).toBe(
      ["One first line", "one second line.", "One third line.", "", "Two first line", "two last line.", "", "Three."].join("\n"),
    );
    // Lines and boxes that do not pair one to one (text drawn in another order): the text is left as it is.
    expect(withParagraphBreaks(text, boxes.slice(1))).toBe(text);
  });

  test("a paragraph's break is measured against the lines that go down the page, however often the text goes back up", () => {
    // Short blocks of two lines, each drawn above the last (a page whose text order climbs: gaps 3, -40, 3, -40, 3,
    // -40), then a line 10 below its block: wider than the usual gap of 3 by more than half a line, so a paragraph.
    const gaps = [3, -40, 3, -40, 3, -40, 10];
    const tops = [700];
    for (const gap of gaps) tops.push((tops.at(-1) as number) - LINE - gap);
    const boxes = tops.map((top) => run("a line of text", 50, top, 300));
    const text = ["A1", "a2.", "B1", "b2.", "C1", "c2.", "D1", "Last."].join("\n");
    expect(withParagraphBreaks(text, boxes).split("\n\n")).toEqual(["A1\na2.\nB1\nb2.\nC1\nc2.\nD1", "Last."]);
  });

  test("a first line indented after a line that ends a sentence begins a paragraph; a list item's indented second line does not", () => {
    // Evenly spaced lines, 14 apart: paragraphs set apart only by indents (x 86 against the margin at 50).
    const at = (left: number, i: number, width = 400) => run("text", left, 700 - 14 * i, width);
    const boxes = [at(86, 0, 364), at(50, 1), at(50, 2, 200), at(86, 3, 364), at(50, 4), at(50, 5), at(86, 6, 364), at(50, 7, 150)];
    const text = [
      "First paragraph begins",
      "and goes on",
      "and ends.",
      "Second paragraph begins",
      "• a list item that wraps onto",
      "• another item whose line is full and goes on",
      "onto an indented second line",
      "that ends here.",
    ].join("\n");
    expect(
      withParagraphBreaks(text, boxes)
        .split("\n\n")
        .map((p) => p.split("\n")[0]),
    ).toEqual(["First paragraph begins", "Second paragraph begins"]);
  });
});
