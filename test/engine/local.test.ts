// The built-in local evaluator: finding a rubric's criteria, scoring stronger work higher, and quotes that resolve to their documents.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Document, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from "docx";
import ExcelJS from "exceljs";
import { findCriteria } from "../../src/engine/local/criteria";
import { decide } from "../../src/engine/local/evaluate";
import {
  adequateBandPass,
  boundaryPass,
  outcomeBandsPass,
  overallScore,
  passLevel,
  statedPassShare,
  withWeightsNoted,
} from "../../src/engine/local/verdict";
import { placeSections } from "../../src/engine/passages";
import type { EngineDocument, Evaluation } from "../../src/engine/types";
import { extract } from "../../src/extract";
import {
  CORPUS,
  collapse,
  corpusDoc,
  HOLISTIC_GUIDE,
  PLAIN_LETTER,
  RUBRIC_MD,
  run,
  STRONG_ESSAY,
  STRONG_LETTER,
  THIN_LETTER,
  textDoc,
  WEAK_ESSAY,
} from "./fixtures";

async function criteriaOf(filename: string, text: string, prompt: string | null = null) {
  const doc = await textDoc("ref_1", filename, text);
  return findCriteria([doc.content], prompt);
}

/** A rubric's criteria as [title, max score, level values or null]. */
async function shapeOf(filename: string, text: string) {
  return (await criteriaOf(filename, text)).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null]);
}

/** The shape (as shapeOf) of a rubric file in test/fixtures/rubrics/, read as uploaded. */
async function fixtureShape(file: string) {
  const content = await extract(await Bun.file(new URL(`../fixtures/rubrics/${file}`, import.meta.url)).bytes(), { filename: file });
  return findCriteria([content], null).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null]);
}

describe("criteria", () => {
  test("Markdown headings with point values are the criteria; the title heading and a Total line are not", async () => {
    const { criteria, source } = await criteriaOf("rubric.md", `${RUBRIC_MD}\n## Total: 100 points\n`);
    expect(source).toBe("references");
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Thesis", 20],
      ["Evidence", 30],
      ["Counterargument", 15],
      ["Organisation", 15],
      ["Conventions", 20],
    ]);
    expect(criteria[1].description).toContain("stormwater runoff");
  });

  test("a numbered list with marks, its sub-bullets as descriptors, and an instructions list left out", async () => {
    const text = [
      "Marking scheme for the lab report",
      "",
      "1. Hypothesis: testable and linked to theory (10 marks)",
      "   - names the independent and dependent variables",
      "2. Method — could be repeated by another student (15 marks)",
      "3. **Analysis** calculations shown, trends described from the data [25 marks]",
      "",
      "Instructions:",
      "- Submit as a PDF",
      "- Deadline: Friday",
    ].join("\n");
    const { criteria } = await criteriaOf("scheme.txt", text);
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Hypothesis", 10],
      ["Method", 15],
      ["Analysis", 25],
    ]);
    expect(criteria[0].description).toContain("independent and dependent variables");
  });

  test("a table with a points column; rows without points default to 10; a Total row is skipped", async () => {
    const text = [
      "| Criterion | Points | Description |",
      "|---|---|---|",
      "| Thesis | 20 | A clear, arguable thesis in the introduction |",
      "| Use of sources | 30 pts | At least three credible sources, cited |",
      "| Style |  | Varied sentences, formal register |",
      "| Total | 50 | |",
    ].join("\n");
    const { criteria } = await criteriaOf("rubric.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.hasPoints])).toEqual([
      ["Thesis", 20, true],
      ["Use of sources", 30, true],
      ["Style", 10, false],
    ]);
    expect(criteria[1].description).toContain("three credible sources");
  });

  test("rows like 'Thesis | 20 points' and 'Organisation (10)' without a header", async () => {
    const { criteria } = await criteriaOf("rubric.txt", "Thesis | 20 points\nOrganisation (10) | logical order of ideas\nStyle | 10 points");
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Thesis", 20],
      ["Organisation", 10],
      ["Style", 10],
    ]);
  });

  test("a table of level columns: each row a criterion, scored out of the top level, described by it", async () => {
    const text = [
      "| Criteria | Excellent (4) | Good (3) | Poor (1) |",
      "|---|---|---|---|",
      "| Argument | Strong claim backed by reasons | A claim | No claim |",
      "| Sources | Cites three sources | Cites one | None |",
    ].join("\n");
    const { criteria } = await criteriaOf("rubric.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.description])).toEqual([
      ["Argument", 4, "Strong claim backed by reasons"],
      ["Sources", 4, "Cites three sources"],
    ]);
  });

  test("a row whose lower cells read 'Incomplete | Missing' is a criterion of the table, not a second header over it", async () => {
    // Both are level words: the Method row was taken as the table's header, so Hypothesis and Method were lost and the
    // rest scored out of 2.
    const text = [
      "| Criterion | Excellent (4) | Good (3) | Fair (2) | Poor (1) |",
      "|---|---|---|---|---|",
      "| Hypothesis | Clear, testable hypothesis grounded in background | Testable hypothesis | Vague hypothesis | Missing |",
      "| Method | Replicable procedure with controls | Mostly replicable | Incomplete | Missing |",
      "| Results | Data in labelled tables and graphs | Minor labelling issues | Poorly presented | Missing |",
      "| Discussion | Interprets results against the hypothesis | Interprets results | Restates results | Missing |",
    ].join("\n");
    const { criteria } = await criteriaOf("rubric.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual(
      ["Hypothesis", "Method", "Results", "Discussion"].map((t) => [t, 4, [1, 2, 3, 4]]),
    );
  });

  test("'(weight 25%)' after a heading, leader dots to a bare number, and '(Yes/No)' are points and answers, not title words", async () => {
    const weighted = await criteriaOf(
      "review.md",
      "# Contract review\n\n## Termination (weight 25%)\nEither party may end it with notice.\n\n## Liability cap (weight 75%)\nCapped at the fees paid.\n",
    );
    expect(weighted.criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Termination", 25],
      ["Liability cap", 75],
    ]);
    const sheet = await criteriaOf(
      "sheet.txt",
      "ESSAY SCORING SHEET\n\nFocus and thesis ........ 25\nDevelopment and support ........ 25\nOrganization ........ 50\n\nTotal ........ 100\n",
    );
    expect(sheet.criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Focus and thesis", 25],
      ["Development and support", 25],
      ["Organization", 50],
    ]);
    const checklist = await criteriaOf(
      "screening.txt",
      "Screening\n\n- At least 3 years of Python development (Yes/No)\n- Experience with PostgreSQL (Y/N)\n- Clear, error-free writing (yes / no)\n",
    );
    expect(checklist.criteria.map((c) => c.title)).toEqual([
      "At least 3 years of Python development",
      "Experience with PostgreSQL",
      "Clear, error-free writing",
    ]);
  });

  test("bands of points under a criterion ('18-20: …', '36-40: …') are its levels, each worth the top of its band", async () => {
    // Before, "18-20" read as level 18 (the criterion's maximum fell from 20 to 18) and "36-40" as no scale at all.
    const text = [
      "# Marking bands",
      "",
      "## Argument",
      "- 18-20: Original, sustained argument",
      "- 14-17: Clear argument",
      "- 10-13: Some argument",
      "- 0-9: No clear argument",
      "",
      "## Content (40 marks)",
      "- 36–40: Thorough, accurate and insightful",
      "- 28–35: Accurate with some depth",
      "- 20–27: Partly accurate",
      "- 0–19: Inaccurate or missing",
    ].join("\n");
    const { criteria } = await criteriaOf("bands.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Argument", 20, [9, 13, 17, 20]],
      ["Content", 40, [19, 27, 35, 40]],
    ]);
    expect(criteria[0].description).toContain("Original, sustained argument");
    expect(criteria[0].levels?.[3].descriptor).toBe("Original, sustained argument");
  });

  test("level tables as teachers make them: a blank corner, a single-point rubric, a name and its description in one cell", async () => {
    // Each read wrongly before: a blank top-left cell lost the level columns (criteria out of 10, or shifted one column
    // in a CSV); a single-point rubric's rows, their first cell empty, were joined into one as if cut by a page break.
    const corner = [
      ["Topic sentence", "Clear and engaging", "Clear", "Unclear", "Missing"],
      ["Supporting details", "Three or more relevant details", "Two details", "One detail", "No details"],
    ];
    const fourLevels = [
      ["Topic sentence", 4, [1, 2, 3, 4]],
      ["Supporting details", 4, [1, 2, 3, 4]],
    ];
    expect(
      await shapeOf("rubric.md", ["|  | 4 | 3 | 2 | 1 |", "|---|---|---|---|---|", ...corner.map((r) => `| ${r.join(" | ")} |`)].join("\n")),
    ).toEqual(fourLevels);
    expect(await shapeOf("rubric.csv", [",Excellent (4),Good (3),Fair (2),Poor (1)", ...corner.map((r) => r.join(","))].join("\n"))).toEqual(
      fourLevels,
    );

    const singlePoint = [
      "| Concerns | Criteria | Advanced |",
      "|---|---|---|",
      "| | **Hook (10 pts)** – The opening grabs the reader's attention. | |",
      "| | **Narrative sequence (30 pts)** – Events unfold in a clear order. | |",
      "| | **Reflection (20 pts)** – The ending reflects on what the experience meant. | |",
    ].join("\n");
    expect(await shapeOf("single-point.md", singlePoint)).toEqual([
      ["Hook", 10, null],
      ["Narrative sequence", 30, null],
      ["Reflection", 20, null],
    ]);
    // Without points, under an "Areas for growth" column left empty for the marker.
    const growth = singlePoint.replace("Concerns", "Areas for growth").replace(/ \(\d+ pts\)/g, "");
    expect((await shapeOf("single-point.md", growth)).map(([title]) => title)).toEqual(["Hook", "Narrative sequence", "Reflection"]);

    const { criteria } = await criteriaOf(
      "rubric.md",
      [
        "| Criteria | Excellent | Good | Needs improvement | Points |",
        "|---|---|---|---|---|",
        "| Thesis — states a clear, arguable claim | Insightful claim | Clear claim | No claim | /20 |",
        "| Evidence — supports claims with quotations | Well chosen | Relevant | Missing | /30 |",
      ].join("\n"),
    );
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Thesis", 20],
      ["Evidence", 30],
    ]);
    expect(criteria[0].description).toContain("states a clear, arguable claim");
    // Level cells that open with their band of points: the criterion is out of the top band's top.
    expect(
      await shapeOf(
        "rubric.md",
        [
          "| Criteria | Excellent | Good | Needs improvement |",
          "|---|---|---|---|",
          "| Thesis | 18-20 pts: Clear, arguable thesis | 14-17 pts: General thesis | 0-13 pts: Thesis missing |",
        ].join("\n"),
      ),
    ).toEqual([["Thesis", 20, [13, 17, 20]]]);
  });

  test("checklists and plain-text rubrics: a numbered 'Item' column, a 'Clause' column, levels under a 'Preparation (0-10 points)' line", async () => {
    const contract = [
      "| Item | Requirement | Yes | No | Comments |",
      "|---|---|---|---|---|",
      "| 1 | Parties are correctly named with legal entity names | | | |",
      "| 2 | Term and renewal provisions are clearly stated | | | |",
      "| 3 | Limitation of liability is capped at fees paid | | | |",
    ].join("\n");
    expect((await criteriaOf("checklist.md", contract)).criteria.map((c) => c.title)).toEqual([
      "Parties are correctly named with legal entity names",
      "Term and renewal provisions are clearly stated",
      "Limitation of liability is capped at fees paid",
    ]);
    const clauses =
      "No.,Clause,Check,Yes/No,Notes\n1,Parties,Legal entity names and addresses are correct,,\n2,Term,Initial term and renewal are stated,,\n";
    const read = (await criteriaOf("checklist.csv", clauses)).criteria;
    expect(read.map((c) => c.title)).toEqual(["Parties", "Term"]);
    expect(read[1].description).toContain("renewal are stated");

    const participation = [
      "Class participation rubric",
      "",
      "Preparation (0-10 points)",
      "Excellent (10): Has read all assigned material and brings notes.",
      "Good (7): Has read most of the material.",
      "Poor (3): Rarely prepared.",
      "",
      "Listening (0-5 points)",
      "Excellent (5): Responds to and builds on others' ideas.",
      "Good (3): Listens attentively.",
      "Poor (1): Interrupts or is distracted.",
    ].join("\n");
    expect((await criteriaOf("participation.txt", participation)).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Preparation", 10, [3, 7, 10]],
      ["Listening", 5, [1, 3, 5]],
    ]);
  });

  test("forms to tick: a DOCX checklist with empty Yes/No columns, a 1–5 rating scorecard, a sheet's info rows above its header", async () => {
    // The DOCX rows whose tick columns were empty came out as bare lines (no table), and one-word clauses ("Term") were
    // taken for a key/value list: both gave the generic criteria. The rating columns beside "Comments" were no scale.
    const docxTable = async (rows: string[][]) => {
      const table = new Table({
        rows: rows.map((r) => new TableRow({ children: r.map((c) => new TableCell({ children: [new Paragraph(c)] })) })),
      });
      const bytes = new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph("Review checklist"), table] }] })));
      return findCriteria([await extract(bytes, { filename: "checklist.docx" })], null).criteria;
    };
    const lease = await docxTable([
      ["Item", "Yes", "No", "N/A", "Notes"],
      ["Parties correctly identified", "", "", "", ""],
      ["Term", "", "", "", ""],
      ["Security deposit", "", "", "", ""],
    ]);
    expect(lease.map((c) => c.title)).toEqual(["Parties correctly identified", "Term", "Security deposit"]);
    const clauses = await docxTable([
      ["Clause", "Required", "Present (Y/N)", "Comments"],
      ["Indemnification", "Yes", "", ""],
      ["Force majeure", "Optional", "", ""],
    ]);
    expect(clauses.map((c) => c.title)).toEqual(["Indemnification", "Force majeure"]);
    const ratings = await docxTable([
      ["Competency", "1", "2", "3", "4", "5", "Comments"],
      ["Customer empathy", "", "", "", "", "", ""],
      ["Problem solving", "", "", "", "", "", ""],
    ]);
    expect(ratings.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Customer empathy", 5, [1, 2, 3, 4, 5]],
      ["Problem solving", 5, [1, 2, 3, 4, 5]],
    ]);
    // A sheet's rows over its header name the candidate, not criteria; a weighted total is no criterion either.
    const sheet = [
      "Candidate,,Interviewer",
      "Competency,Weight,Rating (1-5),Notes",
      "Product sense,30%,,",
      "Execution and delivery,25%,,",
      "Communication,45%,,",
      "Weighted total,100%,,",
    ].join("\n");
    // (Each competency is rated 1–5 and weighs its weight: before, the weight was its maximum and the rating lost.)
    expect((await criteriaOf("scorecard.csv", sheet)).criteria.map((c) => [c.title, c.maxScore, c.levels?.length, c.weight])).toEqual([
      ["Product sense", 5, 5, 30],
      ["Execution and delivery", 5, 5, 25],
      ["Communication", 5, 5, 45],
    ]);
  });

  test("bands of points under criterion lines ('Statement of need (40 points)' over '36–40 points: …') are levels, not criteria", async () => {
    // Each band was a criterion worth its top (15 of them), and a band's wrapped last word ("population.") named one.
    const lines = [
      "Grant proposal scoring guide",
      "",
      "Statement of need (40 points)",
      "36–40 points: Need is documented with current local data and clearly linked to the target",
      "population.",
      "16–35 points: Need is asserted with little data.",
      "0–15 points: Need is not established.",
      "",
      "Budget (10 points)",
      "9–10 points: Budget is reasonable and fully justified.",
      "0–8 points: Budget is unreasonable or unjustified.",
    ];
    const expected = [
      ["Statement of need", 40, [15, 35, 40]],
      ["Budget", 10, [8, 10]],
    ];
    expect(await shapeOf("guide.txt", lines.join("\n"))).toEqual(expected);
    // The same with the bands as list items (a DOCX's paragraphs under plain criterion lines).
    expect(await shapeOf("guide.txt", lines.map((l) => (/^\d/.test(l) ? `- ${l}` : l)).join("\n"))).toEqual(expected);
  });

  test("scales stated other ways: 'Rating (1–5)' over empty cells, Blackboard's 'Points Range: 9 - 10', '### 4 – Exceeds', points first", async () => {
    // An interview scorecard: the rating column is left to fill; its header states the scale (each was out of 10), a
    // scale of whole numbers.
    const scorecard = [
      "| Competency | What to look for | Rating (1–5) |",
      "|---|---|---|",
      "| Customer empathy | Describes a time they resolved a difficult customer issue | |",
      "| Ownership | Follows through on commitments without prompting | |",
    ].join("\n");
    expect(await shapeOf("scorecard.md", scorecard)).toEqual([
      ["Customer empathy", 5, [1, 2, 3, 4, 5]],
      ["Ownership", 5, [1, 2, 3, 4, 5]],
    ]);
    // Blackboard's level cells (each criterion was out of 3, its levels counted).
    const blackboard = [
      "|  | Novice | Competent | Proficient |",
      "|---|---|---|---|",
      "| Problem identification | Points Range: 0 (0%) - 5 (12.5%) Identifies few problems. | Points Range: 6 (15%) - 8 (20%) Identifies most. | Points Range: 9 (22.5%) - 10 (25%) Identifies all. |",
      "| Analysis | Points Range: 0 (0%) - 8 (20%) Lists alternatives. | Points Range: 9 (22.5%) - 14 (35%) Analyses some. | Points Range: 15 (37.5%) - 20 (50%) Weighs each. |",
    ].join("\n");
    expect(await shapeOf("blackboard.md", blackboard)).toEqual([
      ["Problem identification", 10, [5, 8, 10]],
      ["Analysis", 20, [8, 14, 20]],
    ]);
    // A holistic guide whose levels are headings with their number first (the 4 was dropped as a section number).
    const guide =
      "# Constructed response guide\n\n### 4 – Exceeds\nThorough and insightful.\n\n### 3 – Meets\nAccurate.\n\n### 2 – Approaching\nPartly accurate.\n\n### 1 – Beginning\nInaccurate.\n";
    expect(await shapeOf("guide.md", guide)).toEqual([["Constructed response guide", 4, [1, 2, 3, 4]]]);
    // Points in the first column (each was out of 10).
    const first =
      "| Points | Criterion | Description |\n|---|---|---|\n| 20 | Artist statement | Explains the intent |\n| 40 | Body of work | Eight finished pieces |\n";
    expect(await shapeOf("exhibit.md", first)).toEqual([
      ["Artist statement", 20, null],
      ["Body of work", 40, null],
    ]);
    // A row of points under level names gives the levels their values (it was a criterion called "Points").
    const pointsRow =
      "Category,Excellent,Good,Fair,Poor\nPoints,10,7,4,1\nIntroduction,Hook and thesis,Thesis,Unclear thesis,None\nBody,Developed,Partly developed,Thin,None\n";
    expect(await shapeOf("rubric.csv", pointsRow)).toEqual([
      ["Introduction", 10, [1, 4, 7, 10]],
      ["Body", 10, [1, 4, 7, 10]],
    ]);
  });

  test("a DOCX criterion cell with a bold name over its description paragraph: the name is the title", async () => {
    // The cell's paragraphs were joined with a space: "Focus & Thesis Does the essay make a clear claim?" was the title.
    const cell = (name: string, description: string) =>
      new TableCell({ children: [new Paragraph({ children: [new TextRun({ text: name, bold: true })] }), new Paragraph(description)] });
    const plain = (text: string) => new TableCell({ children: [new Paragraph(text)] });
    const table = new Table({
      rows: [
        new TableRow({ children: ["Criterion", "4 pts", "3 pts", "2 pts", "1 pt"].map(plain) }),
        new TableRow({
          children: [
            cell("Focus & Thesis", "Does the essay make a clear interpretive claim?"),
            ...["Insightful thesis.", "Clear thesis.", "General thesis.", "No thesis."].map(plain),
          ],
        }),
        new TableRow({
          children: [
            cell("Textual Evidence", "Quotations from the novel and their integration."),
            ...["Well chosen.", "Relevant.", "Few.", "None."].map(plain),
          ],
        }),
      ],
    });
    const bytes = new Uint8Array(
      await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph("Literary analysis rubric"), table] }] })),
    );
    const { criteria } = findCriteria([await extract(bytes, { filename: "rubric.docx" })], null);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Focus & Thesis", 4, [1, 2, 3, 4]],
      ["Textual Evidence", 4, [1, 2, 3, 4]],
    ]);
    expect(criteria[0].description).toContain("clear interpretive claim");
  });

  test("a table pasted into a text file with tabs between its cells is a table", async () => {
    const text = [
      "Oral presentation rubric",
      "",
      "Criteria\tExcellent (4)\tGood (3)\tFair (2)\tPoor (1)",
      "Eye contact\tMaintains eye contact throughout\tFrequent eye contact\tOccasional eye contact\tReads from notes",
      "Voice\tClear and audible\tMostly clear\tSometimes hard to hear\tInaudible",
    ].join("\n");
    const { criteria } = await criteriaOf("rubric.txt", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Eye contact", 4, [1, 2, 3, 4]],
      ["Voice", 4, [1, 2, 3, 4]],
    ]);
  });

  test("forms to tick: Met / Partially met / Not met, and an agreement scale, with their items alone on their rows as a sheet exports them", async () => {
    const met = [
      ["Images have alternative text", 2, [0, 1, 2]],
      ["Colour contrast meets WCAG AA", 2, [0, 1, 2]],
      ["Form fields have labels", 2, [0, 1, 2]],
    ];
    // A CSV row whose cells to tick are empty comes as its item alone (the generic criteria were read); a worst level
    // that names nothing done ("Not met") is worth nothing.
    const csv = ["Requirement,Met,Partially met,Not met,Notes", ...met.map(([title]) => `${title},,,,`)].join("\n");
    expect(await shapeOf("review.csv", csv)).toEqual(met);
    const markdown = [
      "| Requirement | Met | Partially met | Not met | Notes |",
      "|---|---|---|---|---|",
      ...met.map(([title]) => `| ${title} | ☐ | ☐ | ☐ | |`),
    ];
    expect(await shapeOf("review.md", markdown.join("\n"))).toEqual(met);
    // A survey's agreement scale, its numbers repeated on every row, is a 1–5 scale (it was read as worth 1).
    const likert = [
      "Statement | Strongly disagree | Disagree | Neutral | Agree | Strongly agree",
      "The methods are appropriate. | 1 | 2 | 3 | 4 | 5",
      "The results support the conclusions. | 1 | 2 | 3 | 4 | 5",
    ].join("\n");
    expect(await shapeOf("review.txt", likert)).toEqual([
      ["The methods are appropriate.", 5, [1, 2, 3, 4, 5]],
      ["The results support the conclusions.", 5, [1, 2, 3, 4, 5]],
    ]);
    // Sheets, their rows' empty cells dropped: a food audit with "Met (2) | Partially met (1) | Not met (0)", a peer
    // review on "Strongly disagree … Strongly agree".
    const audit = await fixtureShape("food-audit-met-checklist.xlsx");
    expect(audit).toHaveLength(6);
    expect(audit[0]).toEqual(["Fridge temperatures logged twice daily", 2, [0, 1, 2]]);
    const peers = await fixtureShape("peer-review-likert.xlsx");
    expect(peers).toHaveLength(5);
    expect(peers[0]).toEqual(["Communicates clearly with the team", 5, [1, 2, 3, 4, 5]]);
    // "Total cost of ownership" is a criterion; "Total" and "Total possible" sum the rest.
    const matrix = ["Criterion | Weight", "Functional fit | 30%", "Total cost of ownership | 25%", "Support | 45%", "Total possible | 100%"].join(
      "\n",
    );
    expect((await shapeOf("matrix.txt", matrix)).map(([title, max]) => [title, max])).toEqual([
      ["Functional fit", 30],
      ["Total cost of ownership", 25],
      ["Support", 45],
    ]);
  });

  test("a '#' column numbering a scoresheet's rows is no heading and no scale; its ' | Total | 100' row is the sum", async () => {
    const sheet = [
      "Moot Court — Judge's Scoresheet",
      "# | Criterion | Max | Score",
      "1 | Knowledge and application of the law | 25",
      "2 | Use of authorities | 20",
      "3 | Court manner and presentation | 15",
      " | Total | 60",
    ].join("\n");
    // "# | Criterion …" was a Markdown heading over a 1–3 scale; the total row went on with the last criterion.
    expect(await shapeOf("sheet.md", sheet)).toEqual([
      ["Knowledge and application of the law", 25, null],
      ["Use of authorities", 20, null],
      ["Court manner and presentation", 15, null],
    ]);
  });

  test("a small 'Level | Marks | Descriptor' table under each criterion's numbered heading: its levels are worth their marks", async () => {
    const guide = [
      "Appellate Brief Marking Rubric",
      "",
      "1. Argument Structure (15 marks)",
      "",
      "Level | Marks | Descriptor",
      "Strong | 13–15 | Each ground of appeal is clearly stated and logically ordered.",
      "Adequate | 8–12 | Grounds are stated but ordering is weak.",
      "Weak | 0–7 | Grounds are unclear.",
      "",
      "2. Written Style (10 marks)",
      "",
      "Level | Marks | Descriptor",
      "Strong | 9–10 | Concise, formal and persuasive.",
      "Adequate | 5–8 | Generally clear.",
      "Weak | 0–4 | Wordy or informal.",
    ].join("\n");
    // As a PDF's text gives it: the numbered headings were list items, so one scale was left, titled by the document;
    // and the levels were worth their rank (1–3), not their marks.
    expect(await shapeOf("guide.txt", guide)).toEqual([
      ["Argument Structure", 15, [7, 12, 15]],
      ["Written Style", 10, [4, 8, 10]],
    ]);
  });

  test("a plain-text rubric's levels indented under each criterion, points first ('  10 pts  Thoroughly researched')", async () => {
    const text = [
      "Podcast Episode Rubric",
      "",
      "Criterion: Research",
      "  10 pts  Thoroughly researched; at least four cited sources.",
      "   7 pts  Well researched; two or three sources.",
      "   0 pts  No evidence of research.",
      "",
      "Audio quality (5 points)",
      "   5  Clear audio, balanced levels, no background noise.",
      "   3  Mostly clear; minor noise.",
      "   1  Hard to hear in places.",
      "",
      "Total: 15 points",
    ].join("\n");
    // Each level line was a criterion worth its points.
    expect(await shapeOf("rubric.txt", text)).toEqual([
      ["Research", 10, [0, 7, 10]],
      ["Audio quality", 5, [1, 3, 5]],
    ]);
  });

  test("a scorecard's 'Rating (1–5)' over cells to fill is a 1–5 scale; cells that open with 'Strong (5)' give each row its scale", async () => {
    const scorecard = [
      "Competency | What to look for | Rating (1–5) | Comments",
      "Communication | Explains ideas clearly and listens actively.",
      "Teamwork | Gives examples of collaborating across teams.",
    ].join("\n");
    // (It was out of 5 with no levels: a rating of 4 could not be told from 3.5.)
    expect(await shapeOf("card.txt", scorecard)).toEqual([
      ["Communication", 5, [1, 2, 3, 4, 5]],
      ["Teamwork", 5, [1, 2, 3, 4, 5]],
    ]);
    const ratings = [
      "Criteria | Ratings |  |  | Comments",
      "Thesis | Strong (5) ● Arguable ● Specific | Developing (3) ● Clear but broad | Weak (1) ● Missing or factual",
      "Evidence | Strong (5) ● Relevant quotes | Developing (3) ● Some quotes | Weak (1) ● Little evidence",
    ].join("\n");
    expect(await shapeOf("dbq.txt", ratings)).toEqual([
      ["Thesis", 5, [1, 3, 5]],
      ["Evidence", 5, [1, 3, 5]],
    ]);
    // The same rubric as a DOCX and as LibreOffice's PDF of it: there the bold header row, "Ratings" merged over the three
    // level columns, came as a strip of three cells over a table of four, and the first criterion was taken for the header.
    for (const file of ["dbq-ratings.docx", "dbq-ratings-libreoffice.pdf"])
      expect([file, await fixtureShape(file)]).toEqual([file, ["Thesis", "Evidence", "Analysis"].map((t) => [t, 5, [1, 3, 5]])]);
  });

  test("a table turned on its side: levels as rows ('4 - Expert', 'Expert (4)', '4'), criteria as columns, 'Explanation' among them", async () => {
    const transposed = (label: (n: number) => string) =>
      [
        "Level,Understanding of the problem,Strategy,Accuracy,Explanation",
        `${label(4)},Identifies all key information,Efficient strategy chosen and justified,All calculations correct,Clear explanation`,
        `${label(3)},Identifies most key information,Appropriate strategy,Minor calculation errors,Explanation mostly clear`,
        `${label(2)},Identifies some key information,Partly appropriate strategy,Several errors,Explanation unclear`,
        `${label(1)},Misreads the problem,No clear strategy,Mostly incorrect,No explanation`,
      ].join("\n");
    const names: Record<number, string> = { 4: "Expert", 3: "Practitioner", 2: "Apprentice", 1: "Novice" };
    const criteria = ["Understanding of the problem", "Strategy", "Accuracy", "Explanation"].map((t) => [t, 4, [1, 2, 3, 4]]);
    // One holistic scale (a column named "Explanation" was taken for the levels' descriptions), or each level a criterion.
    for (const label of [(n: number) => `${n} - ${names[n]}`, (n: number) => `${names[n]} (${n})`, (n: number) => String(n)])
      expect(await shapeOf("rubric.csv", transposed(label))).toEqual(criteria);
  });

  test("a plain-text table drawn in characters, '+----+' between its rows, keeps every row", async () => {
    const rule = "+-----------+----------+--------+--------+";
    const table = [
      "STORY RUBRIC",
      rule,
      "| Criterion | 3 Strong | 2 Fair | 1 Weak |",
      rule,
      "| Plot      | Clear    | Thin   | None   |",
      rule,
      "| Setting   | Vivid    | Sketchy| Absent |",
      rule,
    ].join("\n");
    expect(await shapeOf("rubric.txt", table)).toEqual([
      ["Plot", 3, [1, 2, 3]],
      ["Setting", 3, [1, 2, 3]],
    ]);
  });

  test("points given once in a sentence ('Each item is worth 1 point'), and bands of points opening level cells ('36–40: …')", async () => {
    const checklist = [
      "Final Paper Checklist",
      "Each item is worth 1 point.",
      "Requirement | Yes | No",
      "Title page | ☐ | ☐",
      "Works Cited page | ☐ | ☐",
    ];
    // (Each item was out of 10.)
    expect(await shapeOf("check.txt", checklist.join("\n"))).toEqual([
      ["Title page", 1, null],
      ["Works Cited page", 1, null],
    ]);
    const bands = [
      "Criterion | Excellent | Good | Needs Improvement",
      "Content (40 pts) | 36–40: Thorough coverage. | 24–35: Basic coverage. | 0–23: Major gaps.",
      "Sources (20 pts) | 18–20: Five sources. | 12–17: Three sources. | 0–11: Fewer.",
    ];
    expect(await shapeOf("bands.txt", bands.join("\n"))).toEqual([
      ["Content", 40, [23, 35, 40]],
      ["Sources", 20, [11, 17, 20]],
    ]);
    // The same bands printed by Chromium, glyph by glyph: a "1" stands far enough from its neighbours that "0–11" read
    // "0–1 1 :", and those rows lost their levels.
    expect(await fixtureShape("research-paper-bands-chromium.pdf")).toEqual([
      ["Content", 40, [23, 29, 35, 40]],
      ["Organization", 20, [11, 14, 17, 20]],
      ["Sources", 20, [11, 14, 17, 20]],
      ["Mechanics", 20, [11, 14, 17, 20]],
    ]);
  });

  test("a Markdown table whose cells break their lines with '<br>' (as Notion and GitHub exports write them)", async () => {
    const table = [
      "| Criterion | 4<br>Exemplary | 3<br>Proficient | 2<br>Developing |",
      "|---|---|---|---|",
      "| **Hypothesis**<br>*(clear, testable)* | States a testable hypothesis<br>linked to theory | States a hypothesis | Vague |",
      "| **Procedure** | Complete steps;<br>safety noted | Mostly complete | Key steps missing |",
    ].join("\n");
    // The level headers were not read ("4<br>Exemplary"), so each criterion was out of 10.
    expect(await shapeOf("rubric.md", table)).toEqual([
      ["Hypothesis (clear, testable)", 4, [2, 3, 4]],
      ["Procedure", 4, [2, 3, 4]],
    ]);
  });

  test("anchors for some levels of a stated scale ('Rate each competency from 1 to 5', anchors at 1, 3 and 5) score on the whole scale", async () => {
    const card = [
      "# Interview Scorecard",
      "",
      "Rate each competency from 1 to 5. Anchors are given for 1, 3 and 5; use 2 and 4 for answers in between.",
      "",
      "## Customer empathy",
      "- **1** – Blames the customer.",
      "- **3** – Resolves the immediate issue.",
      "- **5** – Turns the customer into an advocate.",
      "",
      "## Ownership",
      "- **1** – Waits to be told.",
      "- **3** – Follows through on commitments.",
      "- **5** – Takes on problems beyond the role.",
    ].join("\n");
    // A bold level number lost the scale (each was out of 10); without bold, the levels were 1, 3 and 5 only.
    const { criteria } = await criteriaOf("card.md", card);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Customer empathy", 5, [1, 2, 3, 4, 5]],
      ["Ownership", 5, [1, 2, 3, 4, 5]],
    ]);
    expect(criteria[0].levels?.find((l) => l.value === 3)?.descriptor).toContain("Resolves the immediate issue");
  });

  test("sub-criteria under a criterion's merged cell are what is marked, each with its marks, in Markdown, DOCX and PDF", async () => {
    const subCriteria = [
      ["Problem definition and requirements", 5, null],
      ["Concept generation and selection", 10, null],
      ["Detailed design and calculations", 15, null],
      ["Test plan", 5, null],
      ["Results and analysis", 10, null],
      ["Report structure and clarity", 5, null],
      ["Drawings and figures", 5, null],
      ["Referencing", 5, null],
    ];
    // The rows under a group's first come with the merged cell empty (Markdown) or without it (a DOCX's vMerge): they
    // were joined into the first as the rest of a row cut by a page break, and the groups were scored out of 5.
    const markdown = [
      "# Engineering Design Report — Marking Scheme",
      "",
      "| Criterion | Sub-criterion | Marks |",
      "|---|---|---|",
      "| Design process | Problem definition and requirements | 5 |",
      "| | Concept generation and selection | 10 |",
      "| | Detailed design and calculations | 15 |",
      "| Testing | Test plan | 5 |",
      "| | Results and analysis | 10 |",
      "| Communication | Report structure and clarity | 5 |",
      "| | Drawings and figures | 5 |",
      "| | Referencing | 5 |",
      "| **Total** | | **60** |",
    ].join("\n");
    expect(await shapeOf("scheme.md", markdown)).toEqual(subCriteria);
    // In a PDF the rows under the merged cell have one cell fewer than the table: they ended it.
    for (const file of ["design-report-subcriteria.docx", "design-report-subcriteria-chromium.pdf"])
      expect([file, await fixtureShape(file)]).toEqual([file, subCriteria]);
  });

  test("groups merged over their indicators, under a two-row header ('Criterion | Indicator | Performance Levels'): the indicators", async () => {
    // The DOCX leaves the merged cells out: a header two cells short read as no header, the indicators as loose rows
    // under their groups ("Design" out of 3). LibreOffice's PDF prints the header's first two cells as a line above the
    // table, so the group column was taken for the criteria and the indicator rows for the rest of a cut row.
    const indicators = ["Functionality", "Usability", "Structure", "Testing"].map((t) => [t, 4, [1, 2, 3, 4]]);
    for (const file of ["web-app-grouped-indicators.docx", "web-app-grouped-indicators-libreoffice.pdf"])
      expect([file, await fixtureShape(file)]).toEqual([file, indicators]);
  });

  test("levels listed under criterion headings are that criterion's scale, in any of the ways teachers write them", async () => {
    // "- Excellent (4): …" under "## Content (4 points)": each level was taken as a criterion with points, and the lot
    // collapsed into one holistic scale; so were "- 4 points: …" levels.
    const named = (level: (n: number, word: string) => string) =>
      ["Content", "Delivery"]
        .map((c) =>
          [
            `## ${c} (4 points)`,
            ...[
              [4, "Excellent"],
              [3, "Good"],
              [2, "Fair"],
              [1, "Poor"],
            ].map(([n, w]) => `- ${level(n as number, w as string)}: ${c} descriptor at level ${n}.`),
            "",
          ].join("\n"),
        )
        .join("\n");
    const fourLevels = [
      ["Content", 4, [1, 2, 3, 4]],
      ["Delivery", 4, [1, 2, 3, 4]],
    ];
    expect(await shapeOf("rubric.md", `# Presentation rubric\n\n${named((n, w) => `${w} (${n})`)}`)).toEqual(fourLevels);
    expect(await shapeOf("rubric.md", `# Presentation rubric\n\n${named((n) => `${n} points`)}`)).toEqual(fourLevels);
    // AP-style rows: "- 0 points: …", "- 1 point: …" under "## Row A: Thesis (0–1 points)".
    const ap =
      "# Argument essay\n\n## Thesis (0–1 points)\n- 0 points: No defensible thesis.\n- 1 point: A defensible thesis that responds to the prompt.\n\n## Evidence and commentary (0–4 points)\n- 0 points: Restates the prompt.\n- 1 point: Summarises sources.\n- 2 points: Some specific evidence.\n- 3 points: Specific evidence, commentary on some claims.\n- 4 points: Specific evidence and consistent commentary.\n";
    expect(await shapeOf("ap.md", ap)).toEqual([
      ["Thesis", 1, [0, 1]],
      ["Evidence and commentary", 4, [0, 1, 2, 3, 4]],
    ]);
    // Levels worth more than 20: named ("Excellent (25): …"), or within the points the criterion states.
    const big =
      "## Content (25 points)\n- Excellent (25): Accurate and thorough.\n- Good (18): Mostly accurate.\n- Poor (5): Inaccurate.\n\n## Visual aids (50 points)\n- 50: Clean slides that support the talk.\n- 35: Mostly clear slides.\n- 10: Slides distract.\n";
    expect(await shapeOf("big.md", big)).toEqual([
      ["Content", 25, [5, 18, 25]],
      ["Visual aids", 50, [10, 35, 50]],
    ]);
    // Marks stated on the line under the heading.
    expect(
      await shapeOf(
        "lab.md",
        "# Lab report\n\n## Method\nMarks available: 20\nThe procedure could be repeated.\n\n## Analysis\nMarks available: 25\nTrends described from the data.\n",
      ),
    ).toEqual([
      ["Method", 20, null],
      ["Analysis", 25, null],
    ]);
  });

  test("a plain-text rubric's note on the total ('added together for a total out of 18') and its score sheet of blanks are no criteria", async () => {
    // Both were read as criteria beside the three traits: the note out of 18, the blanks line out of 6.
    const trait = (name: string) => [name, "", "6: Vivid and focused.", "4: Mostly focused.", "2: Hard to follow.", "1: No story.", ""];
    const text = [
      "GRADE 6 NARRATIVE RUBRIC",
      "",
      "HOW YOU WILL BE SCORED",
      "Each trait below is scored from 6 (highest) to 1 (lowest).",
      "Your three scores are added together for a total out of 18.",
      "",
      ...trait("TRAIT 1: IDEAS"),
      ...trait("TRAIT 2: ORGANIZATION"),
      ...trait("TRAIT 3: CONVENTIONS"),
      "Scoring:   Ideas ____ /6    Organization ____ /6    Conventions ____ /6",
      "           TOTAL ____ /18",
    ].join("\n");
    expect((await shapeOf("narrative.txt", text)).map(([title, max]) => [title, max])).toEqual([
      ["IDEAS", 6],
      ["ORGANIZATION", 6],
      ["CONVENTIONS", 6],
    ]);
  });

  test("scales from other systems: IELTS 'Band 9' rows, IB MYP achievement levels '7–8', 'Criterion A: Argument' cells", async () => {
    const ielts = [
      "| Band | Task response | Coherence and cohesion |",
      "|---|---|---|",
      "| Band 9 | Fully addresses all parts of the task. | Cohesion attracts no attention. |",
      "| Band 8 | Sufficiently addresses all parts. | Sequences information logically. |",
      "| Band 7 | Addresses all parts; a clear position. | Logically organises information. |",
    ].join("\n");
    expect(await shapeOf("ielts.md", ielts)).toEqual([
      ["Task response", 9, [7, 8, 9]],
      ["Coherence and cohesion", 9, [7, 8, 9]],
    ]);
    const myp = [
      "## Criterion A: Knowing and understanding (maximum 8)",
      "",
      "| Achievement level | Level descriptor |",
      "|---|---|",
      "| 0 | Does not reach a standard described below. |",
      "| 1–2 | States basic scientific knowledge. |",
      "| 3–4 | Outlines scientific knowledge. |",
      "| 5–6 | Describes scientific knowledge. |",
      "| 7–8 | Explains scientific knowledge. |",
    ].join("\n");
    // (Named without its letter, as "Section A." and "Criterion 2:" are.)
    expect(await shapeOf("myp.md", myp)).toEqual([["Knowing and understanding", 8, [0, 2, 4, 6, 8]]]);
    // Ontario's "Level 3 (70–79%)" columns are levels 1–4 (they were read as percentages: out of 100).
    const ontario =
      "| Categories | Level 1 (50–59%) | Level 2 (60–69%) | Level 3 (70–79%) | Level 4 (80–100%) |\n|---|---|---|---|---|\n| Knowledge | Limited. | Some. | Considerable. | Thorough. |\n| Communication | Limited clarity. | Some clarity. | Considerable clarity. | High clarity. |\n";
    expect(await shapeOf("ontario.md", ontario)).toEqual([
      ["Knowledge", 4, [1, 2, 3, 4]],
      ["Communication", 4, [1, 2, 3, 4]],
    ]);
    const labelled =
      "| Criterion | Weight | Description |\n|---|---|---|\n| Criterion A: Argument | 40% | Original, sustained argument. |\n| Criterion B: Use of evidence | 60% | Critical use of sources. |\n";
    // (Named without the label before the name, as "Criterion 2:" always was.)
    expect(await shapeOf("essay.md", labelled)).toEqual([
      ["Argument", 40, null],
      ["Use of evidence", 60, null],
    ]);
    // A syllabus's grade breakdown above the rubric is no rubric; "☐" boxes are bullets.
    const syllabus =
      "# Research essay\n\n## Grade breakdown\n- Participation (10%)\n- Quizzes (10%)\n- Essay (80%)\n\n## Rubric\n\n### Thesis (50 points)\nA clear claim.\n\n### Evidence (50 points)\nCited sources.\n";
    expect((await shapeOf("syllabus.md", syllabus)).map(([t, m]) => [t, m])).toEqual([
      ["Thesis", 50],
      ["Evidence", 50],
    ]);
    expect(
      (
        await shapeOf("check.txt", "Poster checklist\n\n☐ Question and hypothesis are stated (4 pts)\n☐ Data are shown in a labelled graph (6 pts)\n")
      ).map(([t]) => t),
    ).toEqual(["Question and hypothesis are stated", "Data are shown in a labelled graph"]);
  });

  test("criteria without points are scored on the scale the rubric states once: a key, or 'a scale of 1 (never) to 5 (always)'", async () => {
    const key =
      "# Persuasive speech\n\nScoring key: 4 = Excellent, 3 = Good, 2 = Fair, 1 = Poor\n\n1. States a clear position in the opening.\n2. Supports reasons with evidence.\n";
    expect(await shapeOf("speech.md", key)).toEqual([
      ["States a clear position in the opening.", 4, [1, 2, 3, 4]],
      ["Supports reasons with evidence.", 4, [1, 2, 3, 4]],
    ]);
    const peers =
      "Peer evaluation\n\nRate each teammate using a scale of 1 (never) to 5 (always).\n\n- Attended team meetings prepared\n- Completed assigned tasks on time\n";
    const rated = await criteriaOf("peers.txt", peers);
    expect(rated.criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Attended team meetings prepared", 5, [1, 2, 3, 4, 5]],
      ["Completed assigned tasks on time", 5, [1, 2, 3, 4, 5]],
    ]);
    expect(rated.criteria[0].levels?.[4].descriptor).toBe("always");
  });

  test("a criterion's points alone on the line under its name ('Summary' / '10 points') are its points", async () => {
    const text =
      "Book review rubric\n\nSummary\n10 points\nSummarises the plot without giving away the ending.\n\nEvaluation\n20 points\nJudges the book's strengths with examples.\n";
    const { criteria } = await criteriaOf("review.txt", text);
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Summary", 10],
      ["Evaluation", 20],
    ]);
    expect(criteria[1].description).toContain("strengths with examples");
  });

  test("a rubric exported as JSON (an LMS's or an API's) is read by its fields: names, points, levels", async () => {
    // Each "path: value" line of the flattened JSON was a criterion ("name: Procedure", "points: 15").
    const generic = JSON.stringify({
      title: "Lab report rubric",
      criteria: [
        {
          name: "Hypothesis",
          points: 10,
          description: "States a testable hypothesis.",
          levels: [
            { label: "Excellent", points: 10, description: "Precise and justified." },
            { label: "Poor", points: 2, description: "Not testable." },
          ],
        },
        { name: "Procedure", points: 15, description: "Method is complete and reproducible." },
      ],
    });
    expect(await shapeOf("rubric.json", generic)).toEqual([
      ["Hypothesis", 10, [2, 10]],
      ["Procedure", 15, null],
    ]);
    // Canvas's export: an array of criteria named by "description", detailed by "long_description", rated by "ratings".
    const canvas = JSON.stringify([
      {
        id: "_4411",
        points: 5,
        description: "Thesis",
        long_description: "The essay states a clear, arguable thesis.",
        ratings: [
          { id: "blank", description: "Full Marks", long_description: "Clear thesis.", points: 5 },
          { id: "_2206", description: "Partial", long_description: "Vague thesis.", points: 3 },
          { id: "blank_2", description: "No Marks", long_description: "", points: 0 },
        ],
      },
      { id: "_8120", points: 10, description: "Evidence", long_description: "Claims are supported with cited evidence.", ratings: [] },
    ]);
    const { criteria } = await criteriaOf("canvas.json", canvas);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null])).toEqual([
      ["Thesis", 5, [0, 3, 5]],
      ["Evidence", 10, null],
    ]);
    expect(criteria[0].description).toContain("clear, arguable thesis");
  });

  test("a rubric exported as XML is read by its fields, attributes included: Moodle's levels, names and points", async () => {
    // Before: attributes were dropped and the text came as loose lines, so the first read as one "Overall quality"
    // scale out of 4 and the second as the three generic criteria.
    const moodle = `<?xml version="1.0" encoding="UTF-8"?>
<rubric><name>Reflective journal</name><criteria>
  <criterion id="1"><description>Depth of reflection</description><levels>
    <level><score>0</score><definition>Only description of events.</definition></level>
    <level><score>2</score><definition>Some reflection on personal learning.</definition></level>
    <level><score>4</score><definition>Deep reflection linking experience to theory.</definition></level>
  </levels></criterion>
  <criterion id="2"><description>Writing quality</description><levels>
    <level><score>0</score><definition>Frequent errors impede meaning.</definition></level>
    <level><score>1</score><definition>Some errors.</definition></level>
    <level><score>2</score><definition>Clear and accurate writing.</definition></level>
  </levels></criterion>
</criteria></rubric>`;
    const { criteria } = await criteriaOf("rubric.xml", moodle);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null])).toEqual([
      ["Depth of reflection", 4, [0, 2, 4]],
      ["Writing quality", 2, [0, 1, 2]],
    ]);
    expect(criteria[0].levels?.[2].descriptor).toBe("Deep reflection linking experience to theory.");
    const attributes = `<rubric title="Oral presentation">
  <criterion name="Content" points="40"><level score="40">Accurate and thorough.</level><level score="10">Superficial.</level></criterion>
  <criterion name="Delivery" points="30"><level score="30">Confident and clear.</level><level score="10">Hard to follow.</level></criterion>
</rubric>`;
    expect(await shapeOf("rubric.xml", attributes)).toEqual([
      ["Content", 40, [10, 40]],
      ["Delivery", 30, [10, 30]],
    ]);
  });

  test("LMS exports of other shapes: Blackboard's values in attributes, D2L's criteria in groups, a map of levels", async () => {
    // Before: the first and third read their "path: value" lines one by one ("RubricRows.Row .id: _r2" was a criterion),
    // the second took the group's shared levels for its criteria.
    const blackboard = `<Rubric><Title value="Essay"/><RubricRows>
  <Row><Header value="Thesis"/><Cells>
    <Cell><Description value="Clear and arguable"/><NumericPoints value="10.0"/></Cell>
    <Cell><Description value="Vague"/><NumericPoints value="5.0"/></Cell>
  </Cells></Row>
  <Row><Header value="Evidence"/><Cells>
    <Cell><Description value="Abundant and relevant"/><NumericPoints value="20.0"/></Cell>
    <Cell><Description value="Thin"/><NumericPoints value="8.0"/></Cell>
  </Cells></Row>
</RubricRows></Rubric>`;
    expect(await shapeOf("rubric.xml", blackboard)).toEqual([
      ["Thesis", 10, [5, 10]],
      ["Evidence", 20, [8, 20]],
    ]);
    const group = (name: string, criteria: string[]) => ({
      Name: name,
      Levels: [
        { Name: "Exemplary", Points: 10 },
        { Name: "Beginning", Points: 2 },
      ],
      Criteria: criteria.map((c) => ({
        Name: c,
        Cells: [
          { Description: { Text: "Strong" }, Points: 10 },
          { Description: { Text: "Weak" }, Points: 2 },
        ],
      })),
    });
    const d2l = JSON.stringify({ Name: "Paper", CriteriaGroups: [group("Content", ["Thesis", "Argument"]), group("Mechanics", ["Grammar"])] });
    expect(await shapeOf("rubric.json", d2l)).toEqual([
      ["Thesis", 10, [2, 10]],
      ["Argument", 10, [2, 10]],
      ["Grammar", 10, [2, 10]],
    ]);
    const mapped = JSON.stringify([
      { criterion: "Hook", points: "4 pts", levels: { 1: "Poor", 2: "Fair", 3: "Good", 4: "Excellent" } },
      { criterion: "Works cited", points: "2 pts", levels: { 0: "Missing", 1: "Partial", 2: "Complete" } },
    ]);
    expect(await shapeOf("rubric.json", mapped)).toEqual([
      ["Hook", 4, [1, 2, 3, 4]],
      ["Works cited", 2, [0, 1, 2]],
    ]);
  });

  test("an exam's mark scheme: each question worth its bracketed marks, its one-mark points what earns them", async () => {
    // Before: the marking points were the criteria (one mark each), and a question of eleven words or more was lost.
    const scheme = [
      "Biology Paper 2 – Mark Scheme",
      "Section A · Total 8 marks. Accept equivalent wording.",
      "Q1 (a) State two functions of the cell membrane. [2 marks]",
      "- controls entry and exit of substances (1)",
      "- cell recognition / receptor sites (1)",
      "Q1 (b) Explain why the rate of diffusion increases with temperature in a living cell. [3 marks]",
      "- particles gain kinetic energy (1)",
      "- move faster (1)",
      "- more collisions per unit time (1)",
      "Q2 Define the term osmosis. [3 marks]",
      "- net movement of water molecules (1)",
      "- from dilute to concentrated solution (1)",
      "- through a partially permeable membrane (1)",
    ].join("\n");
    const { criteria } = await criteriaOf("scheme.txt", scheme);
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Q1 (a) State two functions of the cell membrane.", 2],
      ["Q1 (b) Explain why the rate of diffusion increases with temperature in a living cell.", 3],
      ["Q2 Define the term osmosis.", 3],
    ]);
    expect(criteria[0].description).toContain("cell recognition");
    // Sub-criteria worth more than a mark each, under parents whose points they add up to, are the criteria; a line
    // stating the whole's marks is none, and "Name (10) – what it asks" is named by what comes before its points.
    const guide = [
      "Literature Review – Marking Guide",
      "HLTH 301 · Assessment 2 · Total 60 marks",
      "1. Research (30)",
      "1.1 Sources (10) – At least six peer-reviewed sources.",
      "1.2 Currency (10) – Most sources published in the last five years.",
      "1.3 Variety (10) – Mix of journals, books, grey literature and data sets.",
      "2. Presentation (30)",
      "2.1 Structure (20) – Headings, logical flow, signposting.",
      "2.2 Referencing (10) – Harvard style, complete and consistent.",
    ].join("\n");
    const read = await criteriaOf("guide.txt", guide);
    expect(read.criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Sources", 10],
      ["Currency", 10],
      ["Variety", 10],
      ["Structure", 20],
      ["Referencing", 10],
    ]);
    expect(read.criteria[2].description).toContain("grey literature");
  });

  test("level cells that carry their own points as a bare band ('23–25 Accurate …') or at their end ('… early (4)')", async () => {
    // Before: the levels' names gave every criterion a 1–4 scale, so "Content" was out of 4 instead of 25.
    const bands = [
      "Criteria | Exemplary | Proficient | Developing | Beginning",
      "Content Knowledge | 23–25 Accurate, deep, extends beyond the text | 18–22 Accurate and complete | 13–17 Partly accurate | 0–12 Inaccurate or missing",
      "Conventions | 9–10 Virtually error-free | 7–8 Few errors | 5–6 Several errors | 0–4 Frequent errors",
      // Counts that rise as the levels fall are what the level describes, not its points.
      "Errors | 0–2 errors per page | 3–5 errors per page | 6–8 errors per page | 9–12 errors per page",
    ].join("\n");
    expect(await shapeOf("rubric.md", bands)).toEqual([
      ["Content Knowledge", 25, [12, 17, 22, 25]],
      ["Conventions", 10, [4, 6, 8, 10]],
      ["Errors", 4, [1, 2, 3, 4]],
    ]);
    const trailing = [
      " | Excellent | Good | Fair | Poor",
      "Thesis | Clear thesis stated early (4) | Thesis present but general (3) | Thesis buried (2) | No thesis (1)",
      "Evidence | Well-chosen evidence, insightful analysis (8) | Relevant evidence (6) | Evidence listed (4) | Little evidence (2)",
      "Counterargument | Rebuts a strong opposing view (4) | Mentions one (3) | Strawman (1) | None (0)",
    ].join("\n");
    expect(await shapeOf("rubric.md", trailing)).toEqual([
      ["Thesis", 4, [1, 2, 3, 4]],
      ["Evidence", 8, [2, 4, 6, 8]],
      ["Counterargument", 4, [0, 1, 3, 4]],
    ]);
  });

  test("a wiki's HTML table in Markdown, a bold name and points before a dash, a column stating each row's scale", async () => {
    // Before: the HTML table gave the generic criteria; the bold lines' levels ran together into one scale out of 180
    // (a temperature, "170–180 °C"); the weights were the maxima and the 1–5 scale was lost.
    const wiki = [
      "# Pull Request Review Rubric",
      '<table class="wikitable">',
      "<tr><th>Criterion</th><th>Exceeds<br/>3 pts</th><th>Meets<br/>2 pts</th><th>Below<br/>1 pt</th><th>Not present<br/>0 pts</th></tr>",
      "<tr><td><strong>Correctness</strong></td><td>Handles edge cases</td><td>Main paths work</td><td>Bugs in common paths</td><td>Does not build</td></tr>",
      "<tr><td><strong>Tests</strong></td><td>New paths tested</td><td>Some tests</td><td>Tests fail</td><td>No tests</td></tr>",
      "</table>",
    ].join("\n");
    expect(await shapeOf("review.md", wiki)).toEqual([
      ["Correctness", 3, [0, 1, 2, 3]],
      ["Tests", 3, [0, 1, 2, 3]],
    ]);
    const runIn = [
      "**Café menu design (10 pts)** — the menu must list prices, allergens and a décor note.",
      "- 10 – Balanced, appealing, every allergen flagged",
      "- 4 – Unbalanced or hard to read",
      "- 0 – No menu",
      "",
      "**Crème brûlée practical (15 pts)** — caramelise at 170–180 °C; serve within 5 min.",
      "- 15 – Silky custard, even caramel",
      "- 5 – Split or under-set custard",
      "- 0 – Not served",
    ].join("\n");
    expect(await shapeOf("practical.md", runIn)).toEqual([
      ["Café menu design", 10, [0, 4, 10]],
      ["Crème brûlée practical", 15, [0, 5, 15]],
    ]);
    const scaled = [
      "Criterion,Description,Weight (%),Scale",
      "Communication,Shares information clearly,60,1-5",
      "Teamwork,Supports colleagues,40,1-5",
    ].join("\n");
    const { criteria } = await criteriaOf("scorecard.csv", scaled);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value), c.weight])).toEqual([
      ["Communication", 5, [1, 2, 3, 4, 5], 60],
      ["Teamwork", 5, [1, 2, 3, 4, 5], 40],
    ]);
  });

  test("a European sheet's decimal commas ('Good (1,5)'), and a table Word saved as plain text, a cell a line", async () => {
    // Before: "(1,5)" was points 1 and 5, so every criterion was out of 5; the cells on lines of their own read as one
    // holistic scale.
    const semicolons = [
      "Criterion;Excellent (2);Good (1,5);Fair (1);Poor (0,5)",
      "Content accuracy;All facts correct;Minor slips;Several errors;Mostly inaccurate",
      'Structure;"Clear structure; signposting";Logical order;Hard to follow;No structure',
    ].join("\n");
    expect(await shapeOf("rubric.csv", semicolons)).toEqual([
      ["Content accuracy", 2, [0.5, 1, 1.5, 2]],
      ["Structure", 2, [0.5, 1, 1.5, 2]],
    ]);
    const word = [
      "Poster Project Rubric",
      "",
      "Criteria",
      "Excellent (4)",
      "Good (3)",
      "Missing (1)",
      "",
      "Visual design",
      "Eye-catching, balanced layout",
      "Neat layout, some imbalance",
      "Not attempted",
      "",
      "Sources",
      "Three or more credible sources cited",
      "Two sources cited",
      "No sources",
    ].join("\n");
    expect(await shapeOf("rubric.txt", word)).toEqual([
      ["Visual design", 4, [1, 3, 4]],
      ["Sources", 4, [1, 3, 4]],
    ]);
  });

  test("multipliers in criteria's names, half-point level columns, and a second part of a table on levels of its own", async () => {
    // Before: "Mark | Weighted" columns hid the numbered levels (the header was a criterion, each out of 10); "Attempted
    // 0.5" was no level; Part B's rows were on Part A's four levels, and "Part B" and its header were criteria.
    const multiplied = [
      "Criterion (multiplier) | 4 | 3 | 2 | 1 | Mark | Weighted",
      "Content (×3) | Accurate, thorough, insightful | Accurate and complete | Some gaps | Largely inaccurate",
      "Style (×1) | Fluent, precise vocabulary | Clear register | Awkward in places | Hard to follow",
    ].join("\n");
    const { criteria } = await criteriaOf("grid.md", multiplied);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value), c.weight])).toEqual([
      ["Content", 4, [1, 2, 3, 4], 3],
      ["Style", 4, [1, 2, 3, 4], 1],
    ]);
    const halves = [
      "Criterion | Missing 0 | Attempted 0.5 | Partial 1 | Nearly complete 1.5 | Complete 2",
      "Hypothesis | None stated | Not testable | Not linked to variables | Variables named | Direction stated",
      "Graph | No graph | Wrong type | Axes unlabelled | Scale uneven | Labelled, even scale",
    ].join("\n");
    expect(await shapeOf("lab.md", halves)).toEqual([
      ["Hypothesis", 2, [0, 0.5, 1, 1.5, 2]],
      ["Graph", 2, [0, 0.5, 1, 1.5, 2]],
    ]);
    const parts = [
      "| Criterion | Excellent (4) | Good (3) | Fair (2) | Poor (1) |",
      "| --- | --- | --- | --- | --- |",
      "| Thesis | Precise and arguable | Clear | Vague | Missing |",
      "| Evidence | Rich and well integrated | Adequate | Thin | Absent |",
      "| Part B – Presentation | | | | |",
      "| Criterion | Strong (3) | Adequate (2) | Weak (1) | |",
      "| Delivery | Confident, well paced | Mostly confident | Reads from notes | |",
      "| Visual aids | Clear, purposeful slides | Adequate slides | Cluttered or none | |",
    ].join("\n");
    expect(await shapeOf("project.md", parts)).toEqual([
      ["Thesis", 4, [1, 2, 3, 4]],
      ["Evidence", 4, [1, 2, 3, 4]],
      ["Delivery", 3, [1, 2, 3]],
      ["Visual aids", 3, [1, 2, 3]],
    ]);
  });

  test("levels as people list them: bold names with bands, a definition list, bands on one line, a row per level", async () => {
    // Before: each criterion had its points but no levels (a level-less criterion is scored on its strength alone).
    const nested = [
      "### Thesis — 20 pts",
      "- A clear, arguable claim that frames the whole essay.",
      "  - **Exemplary (18–20):** Precise, arguable and original.",
      "  - **Proficient (14–17):** Clear and arguable but predictable.",
      "  - **Beginning (0–7):** Missing or not arguable.",
      "### Evidence — 30 pts",
      "  - **Exemplary (27–30):** Well-chosen, integrated evidence.",
      "  - **Beginning (0–10):** Little or no evidence.",
    ].join("\n");
    expect(await shapeOf("essay.md", nested)).toEqual([
      ["Thesis", 20, [7, 17, 20]],
      ["Evidence", 30, [10, 30]],
    ]);
    const definitions = [
      "**Clarity** (10 points)  ",
      ": Ideas are clear and easy to follow.  ",
      ": 10 — Every section is clear on first reading.  ",
      ": 2 — Frequently unclear.  ",
      "",
      "**Mechanics** (5 points)  ",
      ": 5 — No errors.  ",
      ": 1 — Errors impede meaning.  ",
    ].join("\n");
    expect(await shapeOf("memo.md", definitions)).toEqual([
      ["Clarity", 10, [2, 10]],
      ["Mechanics", 5, [1, 5]],
    ]);
    const bandLines = [
      "I. Content (40)",
      "   Relevance to the question, depth of knowledge.",
      "   A: 36–40, B: 30–35, C: 24–29, D: 0–23",
      "",
      "II. Form (30)",
      "   Structure and paragraphing.",
      "   A: 27–30, B: 23–26, C: 18–22, D: 0–17",
    ].join("\n");
    expect(await shapeOf("scheme.txt", bandLines)).toEqual([
      ["Content", 40, [23, 29, 35, 40]],
      ["Form", 30, [17, 22, 26, 30]],
    ]);
    const rowPerLevel = [
      "criterion,level,points,descriptor",
      "Testing,Excellent,8,Automated tests and edge cases",
      "Testing,Good,6,Automated tests for main paths",
      "Testing,Poor,0,No testing",
      "Documentation,Excellent,4,README and API docs",
      "Documentation,Fair,2,Sparse README",
    ].join("\n");
    expect(await shapeOf("levels.csv", rowPerLevel)).toEqual([
      ["Testing", 8, [0, 6, 8]],
      ["Documentation", 4, [2, 4]],
    ]);
  });

  test("points per level as bare numbers, in rows or in columns, and criteria named in one sentence with their scale", async () => {
    // Before: the first had no levels, the second read its level names and "Max" as criteria, the third (an e-mail)
    // gave the generic criteria.
    const rowsOfPoints = [
      "Criterion | What we look for | Max points | Excellent | Good | Fair | Poor",
      "Market analysis | Segments and competitors backed by data | 20 | 20 | 15 | 10 | 5",
      "Executive summary | One page, stands alone | 8 | 8 | 6 | 4 | 2",
      "Total |  | 28 | 28 | 21 | 14 | 7",
    ].join("\n");
    expect(await shapeOf("plan.md", rowsOfPoints)).toEqual([
      ["Market analysis", 20, [5, 10, 15, 20]],
      ["Executive summary", 8, [2, 4, 6, 8]],
    ]);
    const columnsOfPoints = [
      "Level | Ideas | Organization | Voice",
      "Strong | 10 | 10 | 5",
      "Capable | 8 | 8 | 4",
      "Developing | 5 | 5 | 2",
      "Beginning | 2 | 2 | 1",
      "Max | 10 | 10 | 5",
    ].join("\n");
    expect(await shapeOf("traits.md", columnsOfPoints)).toEqual([
      ["Ideas", 10, [2, 5, 8, 10]],
      ["Organization", 10, [2, 5, 8, 10]],
      ["Voice", 5, [1, 2, 4, 5]],
    ]);
    const email = [
      "Hi all,",
      "Please score each candidate 1–5 on: communication, technical depth, ownership and collaboration.",
      "Whole numbers only, 5 is the best.",
    ].join("\n");
    expect(await shapeOf("email.txt", email)).toEqual(
      ["communication", "technical depth", "ownership", "collaboration"].map((t) => [t, 5, [1, 2, 3, 4, 5]]),
    );
  });

  test("a bonus criterion is worth its stated points on top of the rubric's maximum, so work without it loses nothing", async () => {
    // Before: "Bonus" was one more row on the table's 10–25 levels, and every essay without a bonus lost 25 of 125.
    const table = [
      "Criteria | Exemplary (25) | Proficient (20) | Developing (15) | Beginning (10)",
      "Accuracy | All facts correct | Minor errors | Several errors | Many errors",
      "Argument | Original claim | Clear claim | Weak claim | No claim",
      "Bonus: creative extension (+5, optional) | Up to 5 extra points for a museum exhibit or a documentary clip | | |",
    ].join("\n");
    const { criteria } = await criteriaOf("project.md", table);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null, c.bonus ?? false])).toEqual([
      ["Accuracy", 25, [10, 15, 20, 25], false],
      ["Argument", 25, [10, 15, 20, 25], false],
      ["Bonus", 5, null, true],
    ]);
    const marks = (a: number, b: number, bonus: number) => [
      { score: a, max_score: 25 },
      { score: b, max_score: 25 },
      { score: bonus, max_score: 5 },
    ];
    expect(overallScore(marks(25, 25, 0), criteria)).toBe(100);
    expect(overallScore(marks(20, 20, 5), criteria)).toBe(90);
    expect(overallScore(marks(25, 25, 5), criteria)).toBe(100);
  });

  test("stars as level names are worth as many points; a list's bullets set apart as cells name no criterion", async () => {
    const stars = [
      "Trait | ★★★★ | ★★★ | ★★ | ★",
      "Voice | Personality shines through | Mostly consistent | Now and then | Flat",
      "Setting | Vivid sensory details | Some details | Named only | Missing",
    ].join("\n");
    expect(await shapeOf("stars.md", stars)).toEqual([
      ["Voice", 4, [1, 2, 3, 4]],
      ["Setting", 4, [1, 2, 3, 4]],
    ]);
    // LibreOffice's PDF sets a list's bullets apart from its items, as cells of a table ("•" was a criterion).
    const deductions = [
      "Criterion | What we look for | Max points",
      "Literature review | Synthesises at least eight sources | 20",
      "Methodology | Design and sample justified | 25",
      "",
      "Deductions",
      "",
      "• | −2 per day late (maximum 5 days)",
      "• | −5 for a missing reference list",
    ].join("\n");
    expect(await shapeOf("proposal.txt", deductions)).toEqual([
      ["Literature review", 20, null],
      ["Methodology", 25, null],
    ]);
  });

  test("fields named in every cell ('Criterion: … | Max: … | Levels: …') and levels listed in one cell", async () => {
    // Before: one criterion, "Criterion", out of 10; and Canvas's ratings copied as text gave no levels.
    const fields = [
      "Criterion: Problem statement | Max: 15 | Levels: 15 excellent / 11 good / 6 weak / 0 missing",
      "Criterion: Budget | Max: 10 | Levels: 10 excellent / 7 good / 4 weak / 0 missing",
    ].join("\n");
    expect(await shapeOf("criteria.txt", fields)).toEqual([
      ["Problem statement", 15, [0, 6, 11, 15]],
      ["Budget", 10, [0, 4, 7, 10]],
    ]);
    const canvas = [
      "| Criteria | Ratings | Pts |",
      "|---|---|---|",
      "| Thesis: The thesis is arguable. | 15 pts Full Marks / 10 pts Partial / 0 pts No Marks | 15 pts |",
      "| Mechanics: Grammar is correct. | 10 pts Full Marks / 5 pts Partial / 0 pts No Marks | 10 pts |",
    ].join("\n");
    const { criteria } = await criteriaOf("canvas.md", canvas);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Thesis", 15, [0, 10, 15]],
      ["Mechanics", 10, [0, 5, 10]],
    ]);
    expect(criteria[0].levels?.[2].descriptor).toBe("Full Marks");
  });

  test("a rubric inside a longer document: a README's 'Grading' list, grade boundaries under the table, a header's empty cell", async () => {
    // Before: the README's headings were the criteria (its "Grading" list was skipped as a section about grading), the
    // boundaries' rows "Grade" and "Points" were criteria, and "Max points" stood over an empty column.
    const readme = [
      "# Assignment 3: Inventory Service",
      "## Setup",
      "```bash",
      "# install deps",
      "pip install -r requirements.txt",
      "```",
      "## What to submit",
      "- Push your final commit to the main branch.",
      "- Fill in REFLECTION.md.",
      "## Grading",
      "- Correctness: 50 points",
      "- Tests: 20 points",
      "- Style: 15 points",
      "- Documentation: 15 points",
      "## Late policy",
      "Late submissions lose 10% per day.",
    ].join("\n");
    expect(await shapeOf("README.md", readme)).toEqual([
      ["Correctness", 50, null],
      ["Tests", 20, null],
      ["Style", 15, null],
      ["Documentation", 15, null],
    ]);
    const boundaries = [
      "Criterion | Limited | Adequate | Good | Excellent",
      "Data collection | 2 | 5 | 8 | 10",
      "Communication | 2 | 4 | 8 | 10",
      "Grade | A | B | C | D | E",
      "Points | 36–40 | 30–35 | 24–29 | 18–23 | 0–17",
    ].join("\n");
    expect(await shapeOf("scheme.txt", boundaries)).toEqual([
      ["Data collection", 10, [2, 5, 8, 10]],
      ["Communication", 10, [2, 4, 8, 10]],
    ]);
    const gap = [
      "Criterion | Description |  | Max points",
      "Community need | Evidence of a clearly identified local need. | 25",
      "Project design | Realistic activities, timeline and milestones. | 20",
    ].join("\n");
    expect(await shapeOf("call.txt", gap)).toEqual([
      ["Community need", 25, null],
      ["Project design", 20, null],
    ]);
  });

  test("a syllabus's grade breakdown ('Component | Weight') is not part of the essay rubric beside it", async () => {
    // Before: "Reading quizzes" and "Participation" were criteria an essay was scored on.
    const tables = [
      "Component | Weight",
      "Essays | 40%",
      "Reading quizzes | 20%",
      "Final essay | 40%",
      "",
      "Final essay rubric",
      "",
      "Criterion | What we look for | Points",
      "Thesis and argument | States a clear, arguable thesis. | 25",
      "Use of textual evidence | Selects apt quotations and explains them. | 25",
    ].join("\n");
    expect(await shapeOf("syllabus.txt", tables)).toEqual([
      ["Thesis and argument", 25, null],
      ["Use of textual evidence", 25, null],
    ]);
    const list = [
      "## Grading",
      "| Component | Weight |",
      "|---|---|",
      "| Essays | 40% |",
      "| Quizzes | 60% |",
      "## Final essay rubric",
      "- Thesis (25 points): a clear, arguable claim.",
      "- Evidence (25 points): apt quotations, explained.",
    ].join("\n");
    expect(await shapeOf("syllabus.md", list)).toEqual([
      ["Thesis", 25, null],
      ["Evidence", 25, null],
    ]);
    // A breakdown alone is still read (a course's components, each its weight).
    expect((await shapeOf("breakdown.md", list.split("\n").slice(0, 5).join("\n"))).map((c) => c[0])).toEqual(["Essays", "Quizzes"]);
  });

  test("Canvas's CSV export: each criterion's repeated 'Rating Name | Rating Description | Rating Points' are its levels", async () => {
    const csv = [
      "Rubric Name,Criteria Name,Criteria Description,Criteria Enable Range,Rating Name,Rating Description,Rating Points,Rating Name,Rating Description,Rating Points,Rating Name,Rating Description,Rating Points",
      "Discussion,Initial post,Answers every part of the prompt,false,Full Marks,Complete and thoughtful,10,Partial,Answers part,5,No Marks,No post,0",
      "Discussion,Replies to peers,Replies to two classmates,false,No Marks,No replies,0,Partial,One reply,3,Full Marks,Two replies,6",
    ].join("\n");
    const { criteria } = await criteriaOf("rubric.csv", csv);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Initial post", 10, [0, 5, 10]],
      ["Replies to peers", 6, [0, 3, 6]],
    ]);
    expect(criteria[1].levels?.[2].descriptor).toBe("Full Marks: Two replies");
  });

  test("a PDF's heading in larger type over each criterion's ruled table is the criterion, not the table's header", async () => {
    // Chromium sets a 13 pt heading's words far apart: "Criterion | 1: | Identification (10 points)" was laid over the
    // table's columns as its header, and the last heading taken for a row; the rubric read as one scale out of 20.
    expect(await fixtureShape("case-brief-heading-per-criterion-chromium.pdf")).toEqual([
      ["Issue Identification", 10, [5, 8, 10]],
      ["Rule Statement", 10, [5, 8, 10]],
      ["Application", 20, [11, 16, 20]],
      ["Citation Form", 10, [5, 8, 10]],
    ]);
  });

  test("a form's 'Comments' over a line to write on is a field of the page, not one more factor to rate", async () => {
    const factors = ["Quality of work", "Productivity", "Job knowledge", "Reliability", "Initiative"];
    expect(await fixtureShape("performance-review-checkboxes-chromium.pdf")).toEqual(factors.map((f) => [f, 5, [1, 2, 3, 4, 5]]));
  });

  test("Canvas's printed rubric: each row's ratings, as many as it has, are its levels, out of its 'Pts' cell", async () => {
    // Printed by a browser, each row's ratings are a table of their own, as wide as their text: the columns did not line
    // up from row to row and the page read as loose lines (criteria "Precise and arguable", "Missing" …).
    expect(await fixtureShape("canvas-ratings-chromium.pdf")).toEqual([
      ["Claim", 10, [0, 7, 10]],
      ["Evidence", 15, [0, 5, 10, 15]],
      ["Reasoning", 15, [0, 8, 15]],
      ["Conventions", 10, [0, 5, 10]],
    ]);
    // Copied as text, with Canvas's ranges ("10 to >7.0 pts"): a rating is worth the top of its range.
    const text = [
      "Criteria | Ratings | Pts",
      "Thesis: A claim stated early. | 10 to >7.0 pts Full Marks A precise claim | 7 to >0 pts Partial A broad claim | 0 pts No Marks No claim | 10 pts",
      "Sources: Cited in MLA. | 5 pts Full Marks Three or more sources | 0 pts No Marks None | 5 pts",
      " |  | Total Points: 15",
    ].join("\n");
    const { criteria } = await criteriaOf("rubric.txt", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Thesis", 10, [0, 7, 10]],
      ["Sources", 5, [0, 5]],
    ]);
    expect(criteria[0].levels?.[2].descriptor).toBe("Full Marks A precise claim");
    expect(criteria[0].description).toContain("A claim stated early.");
  });

  test("a table whose rows have more cells than its header is read, not failed", async () => {
    // Level columns under no header of their own made the reader look up a header cell that was not there (a TypeError:
    // the run failed).
    const table = [
      "| Criteria | Ratings | Pts |",
      "|---|---|---|",
      "| Claim | 10 pts Full marks | 7 pts Partial | 0 pts No marks | 10 pts |",
      "| Evidence | 15 pts Full marks | 8 pts Partial | 0 pts No marks | 15 pts |",
    ].join("\n");
    expect(await shapeOf("rubric.md", table)).toEqual([
      ["Claim", 10, [0, 7, 10]],
      ["Evidence", 15, [0, 8, 15]],
    ]);
  });

  test("a plain-text form to tick: each line's boxes are its levels ('[ ] Met  [ ] Partially met  [ ] Not met')", async () => {
    const form = [
      "Grant Application Compliance Checklist",
      "",
      "Scoring: Met = 2, Partially met = 1, Not met = 0",
      "",
      "Eligibility of applicant organisation      [ ] Met  [ ] Partially met  [ ] Not met",
      "Letters of support attached                [ ] Met  [ ] Partially met  [ ] Not met",
      "Evaluation plan included                   [ ] Met  [ ] Partially met  [ ] Not met",
      "",
      "Total: ____ / 6",
    ].join("\n");
    // (The generic criteria were used: the lines were plain text.)
    expect(await shapeOf("checklist.txt", form)).toEqual([
      ["Eligibility of applicant organisation", 2, [0, 1, 2]],
      ["Letters of support attached", 2, [0, 1, 2]],
      ["Evaluation plan included", 2, [0, 1, 2]],
    ]);
  });

  test("'COMPETENCY 1: …' headings over anchors of a scale stated as 'Rating scale: 1 (…) to 5 (…)'", async () => {
    const sheet = [
      "PANEL INTERVIEW SCORING SHEET",
      "",
      "Rating scale: 1 (Unsatisfactory) to 5 (Outstanding)",
      "",
      "COMPETENCY 1: TECHNICAL KNOWLEDGE",
      "  1 = Cannot explain basic accounting standards.",
      "  3 = Explains IFRS requirements accurately for routine transactions.",
      "  5 = Applies standards to complex cases with confidence.",
      "",
      "COMPETENCY 2: ATTENTION TO DETAIL",
      "  1 = Misses obvious errors in the sample reconciliation.",
      "  3 = Finds most errors.",
      "  5 = Finds all errors and explains their root cause.",
    ].join("\n");
    // (Each was titled with its label and scored on 1, 3 and 5 only.)
    expect(await shapeOf("sheet.md", sheet)).toEqual([
      ["TECHNICAL KNOWLEDGE", 5, [1, 2, 3, 4, 5]],
      ["ATTENTION TO DETAIL", 5, [1, 2, 3, 4, 5]],
    ]);
  });

  test("a marking sheet's section rows ('A | Requirements' over 'A1 | … | 10') are no criteria", async () => {
    const csv = [
      "Ref,Criterion,Marks available,Mark",
      "A,Requirements,,",
      "A1,User stories are complete and testable,10,",
      "A2,Non-functional requirements specified,5,",
      "B,Implementation,,",
      "B1,Core features work as specified,20,",
      ",Total,35,",
    ].join("\n");
    // (Each section was a criterion out of 10.)
    expect(await shapeOf("sheet.csv", csv)).toEqual([
      ["User stories are complete and testable", 10, null],
      ["Non-functional requirements specified", 5, null],
      ["Core features work as specified", 20, null],
    ]);
  });

  test("any table of rubric-like cells, of any widths, is read without an error", () => {
    // Rows wider than their header made the reader fail the run (a TypeError); the same seed every run.
    const cells = ["10 pts Full Marks", "7 pts", "0 pts No Marks", "10 to >7.0 pts Good", "Criteria", "Ratings", "Pts", "", "Total", "A", "A1"];
    cells.push("Claim: a claim", "Met", "Not met", "Excellent (4)", "3", "Strong (5) x", "36–40: y", "Rating (1–5)", "Weight", "30%", "Level");
    let seed = 14;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 1500; i++) {
      const rows = Array.from({ length: 1 + next(6) }, () => {
        const row = Array.from({ length: 1 + next(7) }, () => cells[next(cells.length)]);
        return next(5) === 0 ? `${row[0]}      [ ] Met  [ ] Not met` : next(2) === 0 ? `| ${row.join(" | ")} |` : row.join(" | ");
      });
      const text = rows.join("\n");
      expect(() => findCriteria([{ sections: [{ location: {}, text }] }], null), text).not.toThrow();
    }
  });

  test("a weight beside level columns: each criterion is scored on the levels and weighs its weight", async () => {
    // The weight was the maximum and the 1–4 levels were dropped; then the levels were scaled to the weight (7.5, 15 …),
    // no longer the rubric's own scale.
    const text = [
      "Each criterion is scored from 1 to 4 and multiplied by its weight.",
      "",
      "| Criterion | Weight | 4 – Exemplary | 3 – Proficient | 2 – Developing | 1 – Beginning |",
      "|---|---|---|---|---|---|",
      "| Problem statement | 30% | Precise, well-scoped problem. | Clear problem. | Vague problem. | No problem stated. |",
      "| Timeline | 20% | Realistic, detailed timeline. | Realistic timeline. | Sketchy timeline. | No timeline. |",
    ].join("\n");
    expect(await shapeOf("proposal.md", text)).toEqual([
      ["Problem statement", 4, [1, 2, 3, 4]],
      ["Timeline", 4, [1, 2, 3, 4]],
    ]);
    expect((await criteriaOf("proposal.md", text)).criteria.map((c) => c.weight)).toEqual([30, 20]);
  });

  test("weighted matrices: each criterion on the scale a column or the text states, weighing its weight", async () => {
    // The weights were each criterion's maximum and the stated scale was lost ("Functional fit" out of 30, not 0–10).
    const weighed = async (filename: string, text: string) =>
      (await criteriaOf(filename, text)).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null, c.weight ?? null]);
    const matrix = [
      "Tender evaluation - Library management system,,,,",
      "Criterion,Weight,Score (0-10),Weighted score,Notes",
      "Catalogue and circulation features,40%,,,",
      "Five-year cost,35%,,,",
      "Training offered,25%,,,",
      "Total,100%,,,",
    ].join("\n");
    const zeroToTen = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(await weighed("tender.csv", matrix)).toEqual([
      ["Catalogue and circulation features", 10, zeroToTen, 40],
      ["Five-year cost", 10, zeroToTen, 35],
      ["Training offered", 10, zeroToTen, 25],
    ]);
    // The scale stated once above the table, in a sentence; and a key a PDF wrapped between "1" and "= Does not meet".
    const once = [
      "# Design review",
      "",
      "Each criterion is scored on a 1-5 scale (1 = Poor, 2 = Fair, 3 = Good, 4 = Very good, 5 = Excellent).",
      "",
      "| Criterion | Weight | What we look for |",
      "|---|---|---|",
      "| Requirements traced | 60% | Every requirement maps to a design element. |",
      "| Risks named | 40% | The main risks are named with a mitigation. |",
    ].join("\n");
    expect(await weighed("review.md", once)).toEqual([
      ["Requirements traced", 5, [1, 2, 3, 4, 5], 60],
      ["Risks named", 5, [1, 2, 3, 4, 5], 40],
    ]);
    // A sheet already filled in: its ratings are no maxima.
    expect(await weighed("filled.csv", "Criterion,Weight,Score (1-5)\nPrice,60%,4\nService,40%,2")).toEqual([
      ["Price", 5, [1, 2, 3, 4, 5], 60],
      ["Service", 5, [1, 2, 3, 4, 5], 40],
    ]);
    const wrapped = [
      "Competency | Weight | Notes",
      "Negotiation | 70% |",
      "Reporting | 30% |",
      "",
      "Rating scale: 5 = Exceptional, 4 = Strong, 3 = Meets, 2 = Partially meets, 1",
      "= Does not meet.",
    ].join("\n");
    expect((await weighed("scorecard.txt", wrapped)).map(([, max, levels]) => [max, levels])).toEqual([
      [5, [1, 2, 3, 4, 5]],
      [5, [1, 2, 3, 4, 5]],
    ]);
  });

  test("a heading's weight over its own levels ('## Thesis (weight 40%)' over '- 4: …'): scored on the levels, weighing 40", async () => {
    // The levels were dropped (their top, 4, is not the 40 of the heading) and the criterion was out of 40.
    const text = [
      "# Position paper",
      "",
      "## Thesis (weight 40%)",
      "- 4: A precise, arguable thesis that frames the whole paper.",
      "- 3: A clear thesis.",
      "- 2: A thesis that is vague or too broad.",
      "- 1: No identifiable thesis.",
      "",
      "## Sources (weight 60%)",
      "- 4: Six or more scholarly sources, each analysed.",
      "- 3: Four or five scholarly sources.",
      "- 2: Two or three sources, some not scholarly.",
      "- 1: One source or none.",
    ].join("\n");
    expect(await shapeOf("paper.md", text)).toEqual([
      ["Thesis", 4, [1, 2, 3, 4]],
      ["Sources", 4, [1, 2, 3, 4]],
    ]);
    expect((await criteriaOf("paper.md", text)).criteria.map((c) => c.weight)).toEqual([40, 60]);
  });

  test("a rating that only numbers its levels ('Rating (1-5)') is no description: a skill the CV never names gets the lowest", async () => {
    // Levels were read as descriptions of the work, so the CV's overlap with the whole scorecard gave every row 5 of 5.
    const card = ["Competency | Rating (1-5) | Notes", "Python and SQL experience | |", "Stakeholder communication with executives | |"].join("\n");
    const cv = "Data analyst. Seven years of Python and SQL experience: Python pipelines, SQL warehouses and SQL reporting for finance.";
    const e = await run([await textDoc("ref_1", "card.txt", card)], [await textDoc("doc_1", "cv.txt", cv)], null, "hr");
    expect(e.criteria.map((c) => [c.title, c.score, c.max_score])).toEqual([
      ["Python and SQL experience", 5, 5],
      ["Stakeholder communication with executives", 1, 5],
    ]);
  });

  test("beside weights, a bonus's rationale says what it adds on top; the others' shares leave it out", () => {
    // The bonus's weight counted in the total the shares were taken from: 40% + 40% + 20% for two criteria that
    // weigh half each.
    const rubric = [
      { maxScore: 5, weight: 50 },
      { maxScore: 5, weight: 50 },
      { maxScore: 5, weight: 25, bonus: true },
    ];
    const noted = withWeightsNoted(
      rubric.map(() => ({ rationale: "" })),
      rubric,
    ).map((c) => c.rationale);
    expect(noted).toEqual([
      "It weighs 50% of the overall score.",
      "It weighs 50% of the overall score.",
      "It adds up to 25% on top of the overall score.",
    ]);
  });

  test("a weighted scorecard's overall score weighs each criterion's share by its weight, and each rationale says its weight", async () => {
    const card = ["Criterion | Weight | Rating (1-5)", "Python and SQL experience | 80% |", "Stakeholder communication with executives | 20% |"].join(
      "\n",
    );
    const cv =
      "Data analyst. Seven years of Python and SQL experience: Python pipelines, SQL warehouses, Python notebooks and SQL " +
      "reporting for finance. Built a Python library for SQL data checks used by four teams.";
    const e = await run([await textDoc("ref_1", "card.txt", card)], [await textDoc("doc_1", "cv.txt", cv)], null, "hr");
    const [python, talk] = e.criteria;
    expect([python.max_score, talk.max_score]).toEqual([5, 5]);
    // The two criteria earn different shares, so weighing them tells apart from summing them.
    expect(python.score / python.max_score).not.toBe(talk.score / talk.max_score);
    const weighted = Math.round(100 * (0.8 * (python.score / 5) + 0.2 * (talk.score / 5)));
    expect(e.score).toBe(weighted);
    expect(e.score).not.toBe(Math.round((100 * (python.score + talk.score)) / 10));
    expect(python.rationale).toContain("It weighs 80% of the overall score.");
    expect(talk.rationale).toContain("It weighs 20% of the overall score.");
  });

  test("bold labels leading their text: a letter-grade guide is one scale of 100; '**Thesis (20 points):** …' are criteria", async () => {
    const grades = [
      "# Grading standards for written work",
      "",
      "**A (90–100):** Original, insightful argument; excellent organisation.",
      "",
      "**B (80–89):** Clear argument with good support.",
      "",
      "**C (70–79):** Adequate argument; general support.",
      "",
      "**F (below 70):** Does not meet the assignment.",
    ].join("\n");
    const [scale] = (await criteriaOf("standards.md", grades)).criteria;
    expect([scale.maxScore, scale.levels?.map((l) => l.value)]).toEqual([100, [69, 79, 89, 100]]);
    expect(scale.levels?.[3].descriptor).toContain("Original, insightful argument");
    const led = "# Essay rubric\n\n**Thesis (20 points):** A clear, arguable claim.\n\n**Evidence (30 points):** Cited, relevant sources.\n";
    expect(await shapeOf("rubric.md", led)).toEqual([
      ["Thesis", 20, null],
      ["Evidence", 30, null],
    ]);
  });

  test("a holistic scale (Score 6 … Score 1) is one criterion out of its top score, not six", async () => {
    const text = "# Holistic scoring guide\n\n## Score 6\nInsightful, well developed.\n\n## Score 4\nAdequate.\n\n## Score 1\nMinimal.\n";
    const { criteria } = await criteriaOf("guide.md", text);
    expect(criteria).toHaveLength(1);
    expect(criteria[0].maxScore).toBe(6);
    expect(criteria[0].description).toContain("Insightful");
  });

  test("traits under a 'How your story is scored' label, each with its levels, are the criteria; a band of totals is not", async () => {
    const text = [
      "GRADE 5 WRITING - PICTURE PROMPT STORY",
      "",
      "HOW YOUR STORY IS SCORED",
      "Each of the traits below gets a score from 0 to 4.",
      "",
      "1. STORY IDEAS",
      "   4 - An original story that is clearly connected to the picture, with",
      "       a problem that gets solved.",
      "   3 - The story is connected to the picture and has a problem and a solution.",
      "   2 - The problem or the solution is unclear or rushed.",
      "   1 - The story is barely connected to the picture.",
      "   0 - Not a story.",
      "",
      "2. ORGANIZATION",
      "   4 - A beginning that hooks the reader and an ending that feels finished.",
      "   3 - A clear beginning, middle and end.",
      "   2 - The beginning or ending is weak or missing.",
      "   1 - Hard to follow; events jump around.",
      "   0 - No order at all.",
      "",
      "TOTAL: ____ / 8",
      "",
      "   6 to 8 points  = MEETS the standard (pass)",
      "   3 to 5 points  = APPROACHING the standard",
      "   0 to 2 points  = NOT YET",
    ].join("\n");
    const { criteria } = await criteriaOf("story-guide.txt", text);
    // (Before: the scoring label's list was left out as notes, and "6 to 8 points = MEETS …" read as three criteria.)
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.length])).toEqual([
      ["STORY IDEAS", 4, 5],
      ["ORGANIZATION", 4, 5],
    ]);
  });

  test("a single-point rubric: the criteria are the middle column's bold run-in names, scored on the scale stated for each", async () => {
    const text = [
      "# Lab report, single-point rubric",
      "",
      "## How it works",
      "",
      "The middle column says what a report that meets the standard does.",
      "",
      "Every criterion is scored:",
      "",
      "- **2**: Beyond the standard",
      "- **1**: Meets the standard",
      "- **0**: Working toward the standard",
      "",
      "| Working toward (below the standard) | Criteria (the standard) | Beyond (above the standard) |",
      "|---|---|---|",
      "| *e.g. no hypothesis* | **1. Hypothesis.** States a testable prediction about how light affects growth at 8:00 a.m. and later. | *e.g. explains why* |",
      "| *e.g. steps missing* | **2. Method.** Describes the steps, the variables kept the same and the measurements taken each day. | *e.g. could be repeated exactly* |",
      "| *e.g. no units* | **3. Results.** Reports the measurements in a labelled table with units, and a graph of the mean heights. | *e.g. error bars* |",
    ].join("\n");
    const { criteria } = await criteriaOf("lab-single-point.md", text);
    // (Before: the first column, its header's note saying "standard", named whole example cells; then the scale's list
    // under "How it works" won as one holistic criterion.)
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Hypothesis", 2, [0, 1, 2]],
      ["Method", 2, [0, 1, 2]],
      ["Results", 2, [0, 1, 2]],
    ]);
    expect(criteria[0].description).toContain("testable prediction");
  });

  test("a table of grade bands beside the criteria table places marks; it adds no criteria", async () => {
    const text = [
      "# Essay 1: marking criteria",
      "",
      "| Criterion | Weight | What markers look for |",
      "|---|---|---|",
      "| Argument | 40% | A clear position, sustained. |",
      "| Use of sources | 35% | Relevant, accurately cited sources. |",
      "| Writing | 25% | Clear prose and correct referencing. |",
      "",
      "Each criterion is placed in one of these bands.",
      "",
      "| Band | Percentage | Description |",
      "|---|---|---|",
      "| High Distinction | 85–100% | Outstanding. |",
      "| Distinction | 75–84% | Very strong. |",
      "| Credit | 65–74% | Good. |",
      "| Pass | 50–64% | Satisfactory. |",
      "| Fail | 0–49% | Does not meet the requirement. |",
    ].join("\n");
    // (Before: the two tables were read as one rubric of eight criteria, "High Distinction" worth 100.)
    expect(await shapeOf("essay-1.md", text)).toEqual([
      ["Argument", 40, null],
      ["Use of sources", 35, null],
      ["Writing", 25, null],
    ]);
  });

  test("a vocational brief: its facts table, a survey's results and a rate card are no criteria; PASS/MERIT/DISTINCTION rows split no table", async () => {
    const text = [
      "| Assessor | Mr L. Ashworth | Internal verifier | Ms P. Nwachukwu |",
      "|---|---|---|---|",
      "| Issue date | Monday 4 January 2027 | Hand-in deadline | Friday 12 February 2027 |",
      "| Learning aims covered | A: Investigate the market for a new product. | | |",
      "",
      "Market research",
      "",
      "| Question | Results | | |",
      "|---|---|---|---|",
      "| Q1. Would you buy a flavoured milk at least once a week? | Age 11–15: 38% | 16–24: 46% | 25–44: 27% |",
      "| Q2. What is the most you would pay for a 330 ml flavoured milk? | Under £1.20: 22% | £1.20–£1.49: 51% | |",
      "| Q3. Where do you usually buy chilled drinks? | Supermarket: 44% | Corner shop: 29% | Café: 17% |",
      "",
      "Rate card for promotional activities",
      "",
      "| Activity | Cost |",
      "|---|---|",
      "| Sampling stall at the Saturday market | £180 per day |",
      "| A3 posters, printed | £2.50 each (minimum order 40) |",
      "| Hart FM radio, 30-second advert | £45 per play |",
      "",
      "Assessment criteria",
      "",
      "| Criterion | To achieve the criterion, the evidence must show that the learner is able to: | Learning aim | Assessor decision |",
      "|---|---|---|---|",
      "PASS",
      "| A.P1 | Describe the target market for Dairy Dash, using the market research data provided. | A | Achieved / Not yet achieved |",
      "| B.P3 | Produce a promotional plan that is fully costed and within the budget. | B | Achieved / Not yet achieved |",
      "MERIT",
      "| A.M1 | Analyse the market research data to justify the choice of target market. | A | Achieved / Not yet achieved |",
      "DISTINCTION",
      "| AB.D1 | Evaluate the likely success of the marketing proposal. | A and B | Achieved / Not yet achieved |",
    ].join("\n");
    // (Before: "Assessor", the survey's questions and the rate card's activities were criteria, and each grade's first
    // row was taken for a header, so A.P1, A.M1 and AB.D1 were lost.)
    expect((await criteriaOf("brief.md", text)).criteria.map((c) => c.title)).toEqual([
      "A.P1 Describe the target market for Dairy Dash, using…",
      "B.P3 Produce a promotional plan that is fully costed…",
      "A.M1 Analyse the market research data to justify the…",
      "AB.D1 Evaluate the likely success of the marketing proposal.",
    ]);
  });

  test("an assignment brief's facts sheet (word limit, referencing, case study, confidentiality) adds no criteria", async () => {
    const wb = new ExcelJS.Workbook();
    const brief = wb.addWorksheet("Brief");
    brief.addRow(["Pellingham University – School of Nursing"]);
    // (The rows as a nursing school's brief sheet has them: bench/data/essay-hunts-7/care-plan-rationale.)
    for (const row of [
      ["Module", "NUR2107 Planning and Evaluating Person-Centred Care (Level 5, 20 credits), BSc (Hons) Adult Nursing, Year 2"],
      ["Assessment", "Assessment 1: Care-plan rationale (100% of the module mark)"],
      [
        "Task",
        "Using the case study below, identify TWO priority nursing problems for Mrs Lanning in the first 48 hours after admission. For each problem, set a SMART goal, plan nursing interventions, and write a rationale explaining why each intervention is appropriate, supported by current evidence, national guidance and the NMC Code. Present your care plan as a table in Appendix 1.",
      ],
      [
        "Word limit",
        "1,200 words, excluding the care-plan table (Appendix 1) and the reference list. The marker stops reading at 1,320 words (the limit plus 10%).",
      ],
      ["Referencing", "Harvard (Pellingham style guide)."],
      [
        "Case study",
        'Mrs Ivy Lanning, 81, has been admitted to Larch Ward (acute medicine) via the emergency department with community-acquired pneumonia of the right lower lobe. Observations on admission: respiratory rate 24/min; SpO2 93% on room air; temperature 38.4 °C; heart rate 104 bpm; blood pressure 128/76 mmHg; alert. She has type 2 diabetes treated with metformin; capillary blood glucose 13.2 mmol/L. She has eaten very little for three days and is drinking about 600 mL a day; her urine is concentrated. She usually walks with a stick but is now weak and breathless and spends most of the day in bed or in her chair. Waterlow score 17. Skin intact, with redness over the sacrum that blanches on pressure. She is hard of hearing (hearing aid, left ear). Her husband died ten months ago; she lives alone and her daughter lives 40 miles away. She tells the admitting nurse: "I don\'t want to be any trouble." Antibiotics, oxygen and paracetamol have been prescribed.',
      ],
      [
        "Confidentiality",
        "Use only the case-study details. Naming a real patient, member of staff or placement area is a breach of confidentiality: the work receives 0% and is referred to the programme lead.",
      ],
      ["How it is marked", 'See the sheet "Marking rubric". Grade bands are on the sheet "Grade bands".'],
    ])
      brief.addRow(row);
    const rubric = wb.addWorksheet("Marking rubric");
    rubric.addRow(["NUR2107 Assessment 1 – Care-plan rationale: marking rubric"]);
    rubric.addRow(["Criterion", "Weight (%)", "0–3 Weak", "4–7 Sound", "8–10 Strong", "Score (0–10)"]);
    rubric.addRow([
      "1. Assessment and prioritisation of needs",
      40,
      "Problems not drawn from the case.",
      "Two relevant problems.",
      "Problems prioritised with reasons.",
      "",
    ]);
    rubric.addRow([
      "2. Rationale and use of evidence",
      60,
      "No rationale.",
      "Most interventions justified.",
      "Every intervention justified with evidence.",
      "",
    ]);
    const doc = {
      id: "ref_1",
      name: "rubric.xlsx",
      content: await extract(new Uint8Array(await wb.xlsx.writeBuffer()), { filename: "rubric.xlsx" }),
    };
    // (Before: "Word limit", "Referencing", "Case study", "Confidentiality" and "How it is marked" were criteria too.)
    expect(findCriteria([doc.content], null).criteria.map((c) => c.title)).toEqual([
      "Assessment and prioritisation of needs",
      "Rationale and use of evidence",
    ]);
  });

  test("'Section A. Enquiry question' is named without its section's letter", async () => {
    const text = [
      "## Section A. Enquiry question and hypotheses (6 marks)",
      "States a question.",
      "## Section B. Methods (8 marks)",
      "Describes the methods.",
      "## Section C. Data presentation (8 marks)",
      "Presents the data.",
    ].join("\n\n");
    // (Before: "Section A. Enquiry question and hypotheses": "Section 2." lost its number, "Section A." kept its letter.)
    expect((await criteriaOf("scheme.md", text)).criteria.map((c) => c.title)).toEqual([
      "Enquiry question and hypotheses",
      "Methods",
      "Data presentation",
    ]);
  });

  test("boxes to tick under a total out of as many as there are boxes ('Teacher ticks: ____ / 4') are a point each", async () => {
    const sheet = [
      "Success criteria: tick each box when you have checked it",
      "",
      "| # | Success criterion | What it looks like | Me ✓ | Teacher ✓ |",
      "|---|---|---|---|---|",
      "| 1 | Title | A title that says what the recount is about. | ☐ | ☐ |",
      "| 2 | Paragraphs | New paragraphs for different parts of the day. | ☐ | ☐ |",
      "| 3 | Past tense | Written in the past tense all the way through. | ☐ | ☐ |",
      "| 4 | Full stops and capitals | Used correctly in most sentences. | ☐ | ☐ |",
      "",
      "Teacher ticks: ____ / 4",
    ].join("\n");
    // (Before: each out of 10, so "3 ticks" read as a pass mark was 3 of 40.)
    // (A box is ticked or not: levels 0 and 1, nothing between.)
    expect(await shapeOf("sheet.md", sheet)).toEqual([
      ["Title", 1, [0, 1]],
      ["Paragraphs", 1, [0, 1]],
      ["Past tense", 1, [0, 1]],
      ["Full stops and capitals", 1, [0, 1]],
    ]);
    // "Each tick is worth 1." says so too.
    const worth = sheet.replace("Teacher ticks: ____ / 4", "Each tick is worth 1. The Me column does not count.");
    expect((await shapeOf("sheet.md", worth)).map(([, max]) => max)).toEqual([1, 1, 1, 1]);
  });

  test("a scale 'used for every criterion', a grade guide under a total's bands, a result row and marker notes add no criteria", async () => {
    const text = [
      "## 1. Criteria",
      "| Criterion | Weight | Descriptor |",
      "|---|---|---|",
      "| Summary of the change | 40% | States what the change does. |",
      "| Evidence and severity | 60% | Each defect shown with evidence. |",
      "| RESULT | | Pass = 40% or more. |",
      "| Marker notes | | Credit each point once. |",
      "",
      "## 2. Mark scale (used for every criterion)",
      "| Mark | Descriptor |",
      "|---|---|",
      "| 9–10 | Exceptional |",
      "| 5–8 | Sound |",
      "| 0–4 | Weak |",
    ].join("\n");
    // (Before: "Mark scale (used for every criterion)", "RESULT" and "Marker notes" were criteria too.)
    expect((await criteriaOf("scheme.md", text)).criteria.map((c) => c.title)).toEqual(["Summary of the change", "Evidence and severity"]);
    // A GCSE levels-of-response mark scheme as a department writes it (a held-out hunt's, in this repository).
    const scheme = readFileSync(path.join(import.meta.dir, "../../bench/data/essay-hunts-8/rs-evaluate/checklist.md"), "utf8");
    // (Before: "Grade guide" was a third criterion, and the others "… (levels of response, )".)
    expect((await criteriaOf("scheme.md", scheme)).criteria.map((c) => c.title)).toEqual([
      "Evaluation (levels of response)",
      "Spelling, punctuation and grammar (SPaG)",
    ]);
  });

  test("a table that scores nothing beside a marking grid that does is material (a study's 'Aim | …', 'Participants | …')", async () => {
    // A psychology homework's workbook: a sheet of the task and the study to critique, then the marking grid (a held-out
    // hunt's, in this repository).
    const file = path.join(import.meta.dir, "../../bench/data/essay-hunts-8/methods-critique/checklist.xlsx");
    const doc = await extract(new Uint8Array(readFileSync(file)), { filename: "checklist.xlsx" });
    // (Before: "Teacher", "Deadline", "Task", "STUDY SUMMARY", "Aim", "Hypothesis" … and "RESULT", "Marker notes" too.)
    expect(findCriteria([doc], null).criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Sampling and generalisability", 4],
      ["Design and allocation", 4],
      ["Extraneous and confounding variables", 6],
      ["Validity and reliability", 4],
      ["Ethics", 4],
      ["Improvements", 4],
      ["Terminology and written communication", 4],
    ]);
  });

  test("a review's outcome table (RAG colours and what each means) adds no criteria", async () => {
    const text = [
      "# Supply framework checklist",
      "",
      "1. **Parties and term.** The agreement names both parties and runs for a fixed term.",
      "2. **Price.** Prices are fixed for the first year.",
      "3. **Insurance.** The supplier holds product liability cover of at least £5m.",
      "",
      "### Outcome",
      "",
      "| RAG | Outcome | When |",
      "|---|---|---|",
      "| **GREEN** | Approve for signature | Every item passes. |",
      "| **AMBER** | Sign only after amendments | One item fails. |",
      "| **RED** | Do not sign | Two or more items fail. |",
    ].join("\n");
    // (Before: "RAG", "GREEN", "AMBER" and "RED" were four more items.)
    expect((await criteriaOf("checklist.md", text)).criteria.map((c) => c.title)).toEqual(["Parties and term", "Price", "Insurance"]);
  });

  test("a brief's table ('Task | …', 'Pass mark | …', 'Submission | …'), a grid's classification row and bands by criteria add no criteria", async () => {
    const text = [
      "| Task | Write a reflective account of one episode of care. |",
      "|---|---|",
      "| Length | 800 words (±10%). |",
      "| Voice | Write in the first person. |",
      "| Pass mark | The pass mark for all Level 4 modules is 40%. |",
      "| Submission | Upload by 12:00 on Friday 15 January 2027. |",
      "",
      "## Marking grid",
      "",
      "| No. | Criterion | What the marker looks for | Weighting | Criterion mark (0–100) |",
      "|---|---|---|---|---|",
      "| 1 | Description and feelings | A clear, concise account of what happened. | 40% | |",
      "| 2 | Evaluation and analysis | What went well and what did not, and why. | 60% | |",
      "| | OVERALL MARK | Sum of the weighted marks | 100% | |",
      "| | Classification band | From the overall mark | | |",
      "",
      "## Grade descriptors",
      "",
      "| Mark band | Description and feelings (40%) | Evaluation and analysis (60%) |",
      "|---|---|---|",
      "| 70–100 First | Concise, well-chosen description. | Insightful analysis. |",
      "| 40–49 Third (pass) | Adequate description. | Analysis limited. |",
      "| 30–39 Fail (marginal) | Description unclear. | Little evaluation. |",
      "| 0–29 Fail | Description missing. | No analysis. |",
    ].join("\n");
    // (Before: "Length", "Voice" and the brief's other labels, "Classification band" and the two fail bands were
    // criteria beside the two.)
    const { criteria } = await criteriaOf("reflection.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.weight ?? null])).toEqual([
      ["Description and feelings", 100, 40],
      ["Evaluation and analysis", 100, 60],
    ]);
  });

  test("a plain-text rubric under 'RUBRIC (100 points)', after a fact sheet; its two outcome bands set the pass", async () => {
    const text = [
      "THE ASSIGNMENT",
      "Write a hard news story (300-500 words) about the board's vote.",
      "",
      "FACT SHEET",
      "  - Vote: 4-3 to replace the natural grass with artificial turf",
      "  - Cost: $1.4 million, paid from the 2022 facilities bond",
      "",
      "RUBRIC (100 points)",
      "Read the whole story once before you score it.",
      "",
      "1. HEADLINE ........................................................ 20 pts",
      "   Full credit: accurate, present tense, active verb.",
      "",
      "2. LEDE ............................................................ 40 pts",
      "   Full credit: one sentence, 35 words or fewer.",
      "",
      "3. SOURCES AND QUOTES .............................................. 40 pts",
      "   Full credit: three or more named human sources.",
      "",
      "WHAT YOUR SCORE MEANS",
      "  75-100  PUBLISH. Goes to the copy desk.",
      "  0-74    REWRITE. Comes back to you with my notes.",
    ].join("\n");
    // (Before: the task heading held the list under it, so only "RUBRIC" and "WHAT YOUR SCORE MEANS", out of 100.)
    const { criteria } = await criteriaOf("news.txt", text);
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["HEADLINE", 20],
      ["LEDE", 40],
      ["SOURCES AND QUOTES", 40],
    ]);
    expect(passLevel(criteria, null, [text], 60)).toEqual({ share: 0.75, source: "rubric" });
    // (Bands whose upper outcome is a fail state no pass: "0-49 Needs work" over "50-100 Not yet".)
    expect(outcomeBandsPass("50-100  Not yet\n0-49  Needs work")).toBeNull();
  });

  test("one scale stated in a sentence for every criterion, its levels in a table; the criteria under headings of their own", async () => {
    const text = [
      "## How marks are given",
      "",
      "Each of the four criteria is marked on a level from **0 to 5** (whole levels only). The total is out of 20.",
      "",
      "| Level | Descriptor |",
      "|---|---|",
      "| 5 | Excellent: sophisticated, precise |",
      "| 3 | Sound: relevant and mostly accurate |",
      "| 0 | Absent |",
      "",
      "### Criterion 1: Visual Analysis",
      "Close, accurate description of composition and colour.",
      "",
      "### Criterion 2: Historical Context",
      "The artist, date and place of making.",
      "",
      "### Criterion 3: Argument and Interpretation",
      "A clear thesis sustained through the essay.",
      "",
      "### Criterion 4: Sources and Referencing",
      "Scholarly sources cited in Chicago author-date style.",
      "",
      "## Bands and the pass rule",
      "",
      "An essay **passes** if its total is at least **10 out of 20**.",
    ].join("\n");
    // (Before: one holistic "How marks are given" out of 5, and the server's 60 %.)
    const { criteria } = await criteriaOf("arth.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.length])).toEqual([
      ["Visual Analysis", 5, 6],
      ["Historical Context", 5, 6],
      ["Argument and Interpretation", 5, 6],
      ["Sources and Referencing", 5, 6],
    ]);
    expect(passLevel(criteria, null, [text], 60)).toEqual({ share: 0.5, source: "rubric" });
  });

  test("grade boundaries down the page, decimal bands, a band list in a sentence: no criteria, and the pass they state", async () => {
    const rubric = [
      "| Criterion | Level 1 | Level 2 | Level 3 | Level 4 |",
      "|---|---|---|---|---|",
      "| Task completion | Few parts | Some parts | Most parts | All parts |",
      "| Vocabulary | Very limited | Limited | Varied | Rich |",
    ].join("\n");
    const down = ["Grade boundaries", "", "Grade | Total mark (out of 8)", "5 | 7–8", "4 | 5–6", "3 | 3–4", "U | 0–2", "Grade 4 is a standard pass."];
    const decimals = [
      "Overall level",
      "",
      "| Average | Overall level |",
      "|---|---|",
      "| 3.5 – 4.0 | Advanced |",
      "| 2.5 – 3.4 | Proficient |",
      "| 1.5 – 2.4 | Developing |",
      "| below 1.5 | Beginning |",
    ];
    // (Before: "Grade", "U", "Average" and "1.0" were criteria beside the two.)
    for (const extra of [down, decimals]) {
      const text = `${rubric}\n\n${extra.join("\n")}`;
      const { criteria } = await criteriaOf("spanish.md", text);
      expect(criteria.map((c) => c.title)).toEqual(["Task completion", "Vocabulary"]);
    }
    // The pass: the passing grade's band start (5 of 8), the "Proficient" band's start (2.5 of 4), the "Secure" band's.
    expect(boundaryPass(down.join("\n"))).toBeCloseTo(5 / 8);
    expect(adequateBandPass(decimals.join("\n"))).toBeCloseTo(2.5 / 4);
    expect(adequateBandPass("Overall judgement: Beyond 16–18 · Secure 12–15 · Developing 7–11 · Emerging 0–6.")).toBeCloseTo(12 / 18);
    // "Pass mark for all Level 4 modules: 40" and "40 is a pass" name 40, not the level's 4.
    expect(statedPassShare("Pass mark for all Level 4 modules: 40. Candidate number:", 100)).toBeCloseTo(0.4);
    expect(statedPassShare("4. 40 is a pass. Scripts marked 35–45 are second-marked.", 100)).toBeCloseTo(0.4);
  });

  test("a primary school's 'I can' table scored in stars listed once; its Challenge row optional; its bands of stars no criteria", async () => {
    const text = [
      "## Success criteria",
      "",
      "| | I can… | Me 😊 😐 ☹️ | Teacher ⭐ |",
      "|---|---|---|---|",
      "| 1 | write a **title** that tells the reader what they are making | | |",
      "| 2 | write my **steps in the right order** and **number** them | | |",
      "| 3 | use **capital letters and full stops** | | |",
      '| ⭐ Challenge | add a **"Top tip"** to help my reader | | |',
      "",
      "### What the stars mean (Teacher column)",
      "",
      "- ⭐⭐⭐ Wow! You did this every time.",
      "- ⭐⭐ Yes! You did this.",
      "- ⭐ You have started to do this.",
      "- (no star) Not yet.",
      "",
      "| Stars for 1–3 | Judgement |",
      "|---|---|",
      "| 0–5 | Working towards the expected standard (WTS) |",
      "| 6–8 | Working at the expected standard (EXS) |",
      "| 9 | Working at greater depth (GDS) |",
    ].join("\n");
    // (Before: one holistic "How did I do?" scale, or the band rows as criteria beside the "I can" rows.)
    const { criteria } = await criteriaOf("success-criteria.md", text);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value) ?? null, c.optional ?? false])).toEqual([
      ["write a title that tells the reader what they are making", 3, [0, 1, 2, 3], false],
      ["write my steps in the right order and number them", 3, [0, 1, 2, 3], false],
      ["use capital letters and full stops", 3, [0, 1, 2, 3], false],
      ['add a "Top tip" to help my reader', 3, [0, 1, 2, 3], true],
    ]);
  });

  test("a GCSE question's levels of response and SPaG, each a table of 'Level 4 10–12 marks' under its lettered part", async () => {
    // As a PDF prints it: the part's heading wrapped inside its brackets, the indicative content and the grade
    // boundaries lettered as parts too.
    const text = [
      "5 (d) 'Religious believers should always forgive people who wrong them.' Evaluate this statement. [12 marks]",
      "A. Levels of response (AO2: analyse and evaluate aspects of religion",
      "and belief) — 12 marks",
      "Read the whole answer first, decide the level that best fits, then choose a mark within the",
      "level.",
      "",
      "Level | Descriptor",
      "Level 4 10–12 marks | Evaluates the statement in depth, reaching a justified conclusion.",
      "Level 3 7–9 marks | Considers more than one point of view, with reasoning developed in places.",
      "Level 2 4–6 marks | Gives reasons for or against the statement, some of them developed.",
      "Level 1 1–3 marks | States a point of view with simple reasons.",
      "0 marks | Nothing worthy of credit.",
      "",
      "B. Indicative content (not a checklist: credit any relevant, accurate point)",
      "Jesus told Peter to forgive 'seventy times seven'.",
      "C. Spelling, punctuation and grammar (SPaG) — 3 marks",
      "",
      "Performance | Descriptor",
      "High — 3 marks | Spelling and punctuation are accurate throughout.",
      "Intermediate — 2 marks | Spelling and punctuation are mostly accurate.",
      "Threshold — 1 mark | Spelling and punctuation are reasonably accurate.",
      "0 marks | Errors make the meaning hard to follow.",
      "",
      "D. What your mark means (question total out of 15)",
      "",
      "Grade | 9 | 8 | 7 | 6 | 5 | 4 | 3 | 2 | 1",
      "Minimum mark (out of 15) | 14 | 13 | 12 | 11 | 9 | 7 | 5 | 3 | 2",
    ].join("\n");
    // The pass: the boundary of the grade the text calls a standard pass. (Before: the server's 60 %.)
    const { criteria } = await criteriaOf("question-5d.txt", `${text}\nA grade 4 is a standard pass and a grade 5 a strong pass.`);
    expect(passLevel(criteria, null, [`${text}\nA grade 4 is a standard pass.`], 60)).toEqual({ share: 7 / 15, source: "rubric" });
    expect(boundaryPass(text)).toBeNull();
    // (Before: the levels, "High", "Grade" and "Minimum mark" were thirteen criteria.)
    expect(await shapeOf("question-5d.txt", text)).toEqual([
      ["Levels of response (AO2: analyse and evaluate aspects of religion and belief)", 12, [0, 3, 6, 9, 12]],
      ["Spelling, punctuation and grammar (SPaG)", 3, [0, 1, 2, 3]],
    ]);
  });

  test("a degree-class table ('First | 70 % and above | 56–80' … 'Fail | below 40 %, or …') places marks; it adds no criteria", async () => {
    const text = [
      "# Source commentary: marking rubric",
      "",
      "| # | Criterion | Maximum |",
      "|---|---|---|",
      "| 1 | Source Analysis | 20 |",
      "| 2 | Historical Context | 15 |",
      "| 3 | Argument and Structure | 20 |",
      "",
      "## Grade bands (percentage of 55)",
      "",
      "| Band | Percentage | Marks out of 55 |",
      "|------|-----------|-----------------|",
      "| First | 70 % and above | 39–55 |",
      "| Upper Second (2:1) | 60–69 % | 33–38 |",
      "| Lower Second (2:2) | 50–59 % | 28–32 |",
      "| Third | 40–49 % | 22–27 |",
      "| Fail | below 40 %, or below 8 on Source Analysis | 0–21 |",
    ].join("\n");
    // (Before: the five classes were read as criteria beside the three, "First" worth 55.)
    expect(await shapeOf("commentary.md", text)).toEqual([
      ["Source Analysis", 20, null],
      ["Historical Context", 15, null],
      ["Argument and Structure", 20, null],
    ]);
  });

  test("a levels-of-response mark scheme: each level worth the top of its marks; the indicative content is no criterion", async () => {
    const text = [
      "Question 4: explain why the river flooded. [12 marks]",
      "Mark holistically: choose the level that best fits the answer.",
      "",
      "| Level | Marks | Descriptor |",
      "|---|---|---|",
      "| Level 3 | 9-12 | Thorough, linked explanation with detailed case-study evidence. |",
      "| Level 2 | 5-8 | Some explanation with some case-study detail. |",
      "| Level 1 | 1-4 | Basic points, little detail. |",
      "| 0 | 0 | Nothing worthy of credit. |",
      "",
      "Indicative content (credit any other valid points)",
      "",
      "| Physical causes: heavy rain on saturated ground, steep valley sides. |",
      "|---|",
      "| Human causes: building on the floodplain, new estates with drains. |",
      "| The scheme: flood walls, a storage basin, trees planted upstream. |",
    ].join("\n");
    // (Before: the levels were worth 3, 2, 1, 0 and the indicative content's rows were three criteria beside them.)
    expect(await shapeOf("q4.md", text)).toEqual([["Overall quality", 12, [0, 4, 8, 12]]]);
  });

  test("a plain-text checklist with boxes to tick and blanks to score: the items and their points, not the score boxes", async () => {
    const text = [
      "PERSONAL NARRATIVE CHECKLIST",
      "",
      "Fill in the ME column. Part points are OK (for",
      "example 1 out of 2 if you have only one detail).",
      "",
      "                                                   ME     TEACHER",
      "[ ] 1. FOCUS - 3 pts",
      "       My story is about ONE first-time moment.",
      "       3 = one small moment, told in detail",
      "       0 = not about a first time                   ___    ___ / 3",
      "",
      "[ ] 2. DIALOGUE - 2 pts",
      "       At least one line of talking, with quotation",
      "       marks. (1 pt if there is no quotation marks)  ___    ___ / 2",
      "",
      "[ ] 3. ENDING - 2 pts",
      "       My ending tells what I learned.               ___    ___ / 2",
      "                                           TOTAL    ___    ___ / 7",
    ].join("\n");
    // (Before: each "___ / 2" line and "example 1 out of 2 …" were criteria too, and the names kept "[ ] 1.".)
    expect((await shapeOf("narrative-checklist.txt", text)).map(([title, max]) => [title, max])).toEqual([
      ["FOCUS", 3],
      ["DIALOGUE", 2],
      ["ENDING", 2],
    ]);
  });

  test("'How the paper is scored' over a 6-to-1 scale beside the poem and the policies: one holistic criterion", async () => {
    const text = [
      "# Short Paper 2",
      "",
      "## The poem",
      "",
      "```",
      " 1  Remember me when I am gone away,",
      " 2    Gone far away into the silent land;",
      "```",
      "",
      "## How the paper is scored: Holistic score (1–6)",
      "",
      "I give each paper a single holistic score from 1 to 6.",
      "",
      "**6 — Exceptional.** A precise, arguable thesis; analyses the turn.",
      "",
      "**5 — Strong.** A clear thesis; sound analysis.",
      "",
      "**4 — Competent.** A workable thesis; some analysis.",
      "",
      "**3 — Limited.** Mostly paraphrase.",
      "",
      "**2 — Weak.** A retelling.",
      "",
      "**1 — Does not address the task.**",
      "",
      "## Submission and policies",
      "",
      "- Upload one file by Friday.",
      "- Late papers lose one holistic point.",
    ].join("\n");
    // (Before: "The poem" and "Submission and policies" were two criteria on the 1–6 scale; the scale itself none.)
    expect(await shapeOf("paper.md", text)).toEqual([["Overall quality", 6, [1, 2, 3, 4, 5, 6]]]);
  });

  test("criteria as columns over levels as rows, with a row of score boxes; a table of measurements is no rubric", async () => {
    const text = [
      "Level | Claim | Evidence from our data | Organization",
      "4 - Exceeds | A complete claim for all three dishes. | Accurate numbers for all three dishes. | Organized paragraphs.",
      "2 - Approaching | A partly correct claim. | Few or no numbers. | Some order.",
      "0 - Not yet | No claim. | No data. | Notes or a list.",
      "Score | __ / 4 | __ / 4 | __ / 4",
      "",
      "Our data",
      "",
      "Day | Dish A mL | Dish B mL",
      "0 | 200 | 200",
      "2 | 171 | 193",
      "7 | 104 | 176",
    ].join("\n");
    // (Before: the "Score | __ / 4" row made the level table no scale, one criterion was read, and "Day" and "0" beside it.)
    expect(await shapeOf("science.txt", text)).toEqual([
      ["Claim", 4, [0, 2, 4]],
      ["Evidence from our data", 4, [0, 2, 4]],
      ["Organization", 4, [0, 2, 4]],
    ]);
  });

  test("a PDF's criteria table cut by wrapped cells goes on after them; a grade conversion table adds no criteria", async () => {
    const text = [
      "Criterion (weight) | Excellent | Good | None",
      "A. Provenance: | 22–25: Uses author, | 17–21: | 0",
      "",
      "origin and ownership, date, Explains origin origin",
      "purpose (25%) | type of source and | and purpose",
      " | audience to explain | with relevant",
      "",
      "shape what the less reliability.",
      "",
      "B. Content and inference (25%) | 22–25: Precise quotations and inferences. | 17–21: Accurate use of content. | 0",
      "C. Context (50%) | 40–50: Well-chosen context tests the source. | 30–39: Relevant context. | 0",
      "",
      "Pass: 50% or more.",
      "",
      "Mark (%) | Grade | Descriptor",
      "80–100 | A | Excellent",
      "70–79 | B | Good",
      "50–69 | C | Pass",
      "0–49 | F | Fail",
    ].join("\n");
    // (Before: "purpose" was a criterion of its own, "B. Content …" the header of a second table, and A to F five more.)
    expect((await shapeOf("source-analysis.txt", text)).map(([title, max]) => [title, max])).toEqual([
      ["Provenance", 25],
      ["Content and inference", 25],
      ["Context", 50],
    ]);
  });

  test("a person specification's tables under 'Essential' and 'Desirable': the desirable rows are optional", async () => {
    const text = [
      "## Person specification",
      "",
      "### Essential",
      "",
      "| Code | Criterion |",
      "|---|---|",
      "| E1 | Advanced SQL against a production database. |",
      "| E2 | Building dashboards in Power BI. |",
      "",
      "### Desirable",
      "",
      "| Code | Criterion |",
      "|---|---|",
      "| D1 | Python or R for analysis. |",
      "| D2 | Line management of other analysts. |",
    ].join("\n");
    const { criteria } = await criteriaOf("spec.md", text);
    // (Before: the desirable rows were required as the essential ones.)
    expect(criteria.map((c) => c.optional ?? false)).toEqual([false, false, true, true]);
  });

  test("checklists as legal teams write them: bold items under 'The checklist', run-in paragraphs, coded items, a Required? column", async () => {
    const numbered = [
      "# Photography checklist",
      "## How to use it",
      "Items 1 and 2 are required.",
      "## The checklist",
      "1. **Scope of the shoot**",
      "   What is photographed, when and where.",
      "2. **Copyright assignment**",
      "   The copyright is assigned to us.",
      "3. **Retention of raw files** *(nice to have)*",
      "   Raw files kept for a year.",
      "## Escalation",
      "Anything unusual goes to the Head of Legal.",
    ].join("\n");
    // (Before: "How to use it", "The checklist" and "Escalation" were the three criteria.)
    expect((await criteriaOf("photo.md", numbered)).criteria.map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Scope of the shoot", false],
      ["Copyright assignment", false],
      ["Retention of raw files", true],
    ]);
    const runIn = [
      "Subcontract Review Checklist",
      "The points",
      "Scope of the works. The subcontract must define our works by reference to listed",
      "drawings and a specification.",
      "Retention. Retention must not exceed 5%. Half is released at practical completion.",
      "Adjudication. Either party must be able to refer a dispute to adjudication at any time.",
      "Price fluctuations (desirable). A fluctuations mechanism for volatile materials.",
      "Decision",
      "Sign when all the required points are met.",
    ].join("\n");
    // (Before: no list, table or heading was found, so the generic criteria were used.)
    expect((await criteriaOf("subcontract.txt", runIn)).criteria.map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Scope of the works", false],
      ["Retention", false],
      ["Adjudication", false],
      ["Price fluctuations", true],
    ]);
    const coded = [
      "MUST HAVE",
      "",
      "A1. Grant amount and payment schedule",
      "    The amount, and when it is paid.",
      "",
      "A2. Repayment limited to misuse or underspend",
      "    Money back only if it was misused or is unspent.",
      "",
      "NICE TO HAVE",
      "",
      "B1. Contribution to overheads",
      "    A share of our overheads is allowed.",
    ].join("\n");
    // (Before: "A2. Repayment limited …", seven words with its code, was not taken for a name.)
    expect((await criteriaOf("grant.txt", coded)).criteria.map((c) => c.optional ?? false)).toEqual([false, false, true]);
    const table = [
      "| Clause | What to look for | Required? |",
      "|---|---|---|",
      "| Security | Appropriate technical and organisational measures. | Required |",
      "| Audits | Audits and inspections allowed. | Required |",
      "| International transfers | No transfer without consent. | If applicable |",
    ].join("\n");
    expect((await criteriaOf("dpa.md", table)).criteria.map((c) => c.optional ?? false)).toEqual([false, false, true]);
  });

  test("more checklist shapes: tick boxes with a last one-line item, a Must/Should column, coded run-ins under Part A and Part B", async () => {
    const ticks = [
      "REQUIRED ITEMS",
      "",
      "[ ] 1. Equipment schedule. Every machine covered is listed with its make, model and",
      "       serial number.",
      "",
      "[ ] 2. Service records. A written job report after every visit, describing the work",
      "       done.",
      "",
      "OPTIONAL ITEMS",
      "",
      "[ ] 3. [OPTIONAL] Cap on price increases. Annual increases are limited to an index.",
    ].join("\n");
    // (Before: the last item, on one line ending in a stop, was taken for a sentence after the list.)
    expect((await criteriaOf("maintenance.txt", ticks)).criteria.map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Equipment schedule", false],
      ["Service records", false],
      ["Cap on price increases", true],
    ]);
    const mustShould = [
      "Item | What we need | Must/Should",
      "Handover of code | On completion the developer hands over the source code, the | Must",
      "| database, and all administrator, domain and hosting credentials.",
      "Hosting | Service levels and fees for hosting are stated. | Should",
      "Training | Training for our staff. | Should",
    ].join("\n");
    // (Before: the wrapped cell's line ended the table, and "Must/Should" marked nothing optional.)
    expect((await criteriaOf("web.txt", mustShould)).criteria.map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Handover of code", false],
      ["Hosting", true],
      ["Training", true],
    ]);
    const parts = [
      "# Review checklist",
      "## Instructions for the reviewer",
      "Record the clause for each item.",
      "## Part A: Essential",
      "A1. Licensed rights identified. The patents licensed are listed by number.",
      "A2. Right to sub-license. We may grant sub-licences to partners.",
      "A3. Warranty of title. The university warrants that it owns the patents.",
      "## Part B: Desirable",
      "B1. Improvements. We are told of the university's improvements.",
      "## Decision rule",
      "Recommend signature only if every Part A item is met.",
    ].join("\n");
    // (Before: the headings "Instructions for the reviewer", "Part A: Essential" and "Part B: Desirable" were the criteria.)
    expect((await criteriaOf("licence.md", parts)).criteria.map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Licensed rights identified", false],
      ["Right to sub-license", false],
      ["Warranty of title", false],
      ["Improvements", true],
    ]);
  });

  test("a weighted grid: 'Criterion | Weight | 5 | 3 | 1 | Weighted points', each weight a multiplier", async () => {
    const text = [
      "Criterion | Weight | 5 | 3 | 1 | Weighted points",
      "Matter | ×3 | Two developed arguments with evidence. | Some evidence. | Assertions only. | / 15",
      "Rebuttal | ×2 | Answers every point. | Answers two points. | Mentions the other side. | / 10",
      "Manner | × 1 | Written to be heard. | Mostly suitable for speaking. | Reads as notes. | / 5",
    ].join("\n");
    // (Before: the header was read as a criterion of its own, "Criterion", and the multipliers as nothing.)
    expect((await criteriaOf("grid.txt", text)).criteria.map((c) => [c.title, c.maxScore, c.weight])).toEqual([
      ["Matter", 5, 3],
      ["Rebuttal", 5, 2],
      ["Manner", 5, 1],
    ]);
  });

  test("a guide whose items are 'NOT scored separately', marked by bands under 'HOW IT IS MARKED': one scale of 30", async () => {
    const text = [
      "WHAT I LOOK FOR                 WHAT IT LOOKS LIKE",
      "Analysis                        Patterns described with the figures.",
      "Conclusion                      Answers the enquiry question.",
      "",
      "HOW IT IS MARKED",
      "The items above are NOT scored separately. I give ONE mark out of 30.",
      "",
      "  25-30  Excellent   Every part done well.",
      "  15-24  Sound       All main parts present.",
      "   8-14  Limited     Some results described.",
      "   1-7   Very limited  A few relevant statements only.",
    ].join("\n");
    // (Before: the bands under a scoring label were left out as notes, the right-aligned ones read as the lines of the
    // one above, and nothing was found: the generic criteria.)
    expect(await shapeOf("fieldwork.txt", text)).toEqual([["Overall quality", 30, [7, 14, 24, 30]]]);
  });

  test("a marking guide by question and part: the 'Marked for' column names the criteria, not the '(a)', '(b)' parts", async () => {
    const text = [
      "Question | Part | Marked for | What the marker looks for | Marks",
      "1 |  | Claim | Answer the research question. | 2",
      "2 | (a) | Data quoted | Quote results from the class data. | 2",
      "2 | (b) | Trend described | Describe the pattern across the whole range. | 2",
      "3 |  | Scientific explanation | Explain the result using particles. | 4",
    ].join("\n");
    expect(await shapeOf("guide.txt", text)).toEqual([
      ["Claim", 2, null],
      ["Data quoted", 2, null],
      ["Trend described", 2, null],
      ["Scientific explanation", 4, null],
    ]);
  });

  test("a PDF row whose short name is cut ('3. Close' over 'reading and evidence | …') is one criterion", async () => {
    const text = [
      "Criterion | Excellent | Good | Points",
      "1. Comparative thesis | 7–8: An arguable thesis. | 5–6: A clear thesis. | / 8",
      "2. Close | 9–10: Well- | 7–8: Relevant | / 10",
      "reading and evidence | chosen short quotations. | quotations with analysis.",
      "3. Context | 4: Context used to illuminate. | 3: Relevant context. | / 4",
    ].join("\n");
    // (Before: "Close" and "reading and evidence" were two criteria.)
    expect((await shapeOf("comparison.txt", text)).map(([title]) => title)).toEqual(["Comparative thesis", "Close reading and evidence", "Context"]);
  });

  test("a checklist's asides and the reviewer's notes after its optional terms are no criteria", async () => {
    const text = [
      "Consultancy agreement review checklist",
      "",
      "Required terms",
      "",
      "Scope of services",
      "",
      "A description of the services and the deliverables.",
      "",
      "Fees and invoicing",
      "",
      "The fee, when it is invoiced and when it is paid.",
      "",
      "Preferred terms",
      "",
      "These are not mandatory, but their absence should be noted in the review",
      "record.",
      "",
      "Non-solicitation: a restriction on the consultant poaching our staff for a",
      "reasonable period after the engagement.",
      "",
      "Insurance: the consultant maintains professional indemnity insurance at a",
      "stated level.",
      "",
      "Escalate to the Head of Legal if any required term is missing, or if a",
      "Required term is drafted so as to remove our position (for",
      "example, a fee payable before any work).",
      "",
      "Review record",
      "",
      "Record each item as Met, Not met or Unclear, with the clause number.",
      "",
      "Assess substance rather than headings: a clause may be headed",
      "differently from this checklist.",
    ].join("\n");
    const { criteria } = await criteriaOf("consultancy-checklist.txt", text);
    // (Before: "These are not mandatory, but …", "Required term is drafted …" and "Assess substance …" were optional
    // criteria.)
    expect(criteria.map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Scope of services", false],
      ["Fees and invoicing", false],
      ["Non-solicitation", true],
      ["Insurance", true],
    ]);
  });

  test("a checklist's numbered clauses are its criteria, not its 'Checklist (3 clauses)' and 'Decision rule' headings", async () => {
    const text = [
      "# NDA review checklist",
      "",
      "Mark each clause present or missing.",
      "",
      "## Checklist (3 clauses)",
      "",
      "1. **Parties and Roles:** the parties are named, and it is clear which party",
      "   discloses information and which receives it.",
      "2. **Exclusions:** information that is public or already known to the recipient",
      "   is excluded.",
      "3. **Governing Law:** the law that governs the agreement is stated.",
      "",
      "## Decision rule",
      "",
      "- **Sign:** all three clauses are present.",
      "- **Renegotiate:** one clause is missing.",
      "- **Walk away:** two or more clauses are missing.",
    ].join("\n");
    const { criteria } = await criteriaOf("nda-checklist.md", text);
    expect(criteria.map((c) => c.title)).toEqual(["Parties and Roles", "Exclusions", "Governing Law"]);
  });

  test("a task under a Prompt heading is the task, not a criterion, beside a holistic scale as a list", async () => {
    const text = [
      "# Persuasive letter: should our town build a skate park?",
      "",
      "## Prompt",
      "",
      "Write a letter to your local newspaper arguing for or against a skate park. Do one of the following:",
      "- argue for it, with reasons and examples;",
      "- argue against it, with reasons and examples.",
      "",
      "## Scoring (holistic, 1 to 6)",
      "",
      "- Score 6: A clear position, convincing reasons and examples, objections answered; fluent, varied language.",
      "- Score 5: A clear position, solid reasons and relevant examples; well organised.",
      "- Score 4: A position supported by some reasons and examples; adequate language.",
      "- Score 3: Thin or general support; uneven organisation.",
      "- Score 2: Position unclear or barely supported.",
      "- Score 1: No clear position, little or no support.",
    ].join("\n");
    const { criteria } = await criteriaOf("letter-rubric.md", text);
    // One criterion out of 6, named by the heading above the scale; the prompt's two options are not criteria.
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([["Scoring (holistic, 1 to 6)", 6]]);
    expect(criteria[0].description).toContain("convincing reasons");
  });

  test("a holistic scale written as plain lines under a Rubric heading is one criterion, not the generic three", async () => {
    const text = [
      "# Reading response",
      "",
      "## Prompt",
      "",
      "Explain how the setting affects the cyclist in the story, with examples from the story.",
      "",
      "## Rubric",
      "",
      "Score 3: Shows an understanding of the complexities of the text, supported with relevant examples.",
      "Score 2: Shows a partial understanding, with some examples.",
      "Score 1: Shows a minimal understanding, with few or no examples.",
      "Score 0: Totally incorrect or irrelevant.",
    ].join("\n");
    const found = findCriteria([{ sections: [{ location: {}, text }] }], null);
    expect(found.source).toBe("references");
    // The scale belongs to the heading right above it ("Rubric", so it gets a name of its own), not to the title.
    expect(found.criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([["Overall quality", 3, [0, 1, 2, 3]]]);
    expect(found.criteria[0].description).not.toContain("cyclist");
  });

  test("plain-text rubrics (as a PDF or TXT gives them) keep their scales: holistic 'Score N:' lines, levels under a pointed line, '4 Excellent' columns", async () => {
    const holistic = await criteriaOf(
      "guide.txt",
      "Reading response\n\nRubric\nScore 3: Shows an understanding of the complexities of the text, with relevant examples.\n" +
        "Score 2: Shows a partial understanding, with some examples.\nScore 1: Shows a minimal understanding.\nScore 0: Irrelevant or incorrect.\n",
    );
    expect(holistic.criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([["Overall quality", 3, [0, 1, 2, 3]]]);

    const traits = await criteriaOf(
      "rubric.txt",
      "Essay rubric\n\nIdeas (0-3)\n3: Clearly focused, thoroughly developed.\n2: Somewhat focused.\n1: Minimally focused.\n0: Not focused.\n\n" +
        "Organization (0-3)\n3: Clear and logical.\n2: Logical.\n1: Weak.\n0: None evident.\n",
    );
    expect(traits.criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Ideas", 3, [0, 1, 2, 3]],
      ["Organization", 3, [0, 1, 2, 3]],
    ]);
    expect(traits.criteria[0].description).toContain("Clearly focused");

    const table = await criteriaOf(
      "rubric.md",
      "| Criterion | 4 Excellent | 3 Good | 2 Fair | 1 Poor |\n|---|---|---|---|---|\n| Thesis | Sharp claim | Clear claim | Vague claim | No claim |\n| Evidence | Rich | Adequate | Thin | None |\n",
    );
    expect(table.criteria.map((c) => [c.title, c.maxScore, c.description])).toEqual([
      ["Thesis", 4, "Sharp claim"],
      ["Evidence", 4, "Rich"],
    ]);
  });

  test("one rubric as Markdown, DOCX, PDF, XLSX or CSV, as lists or as a table, is one rubric: the same criteria, levels, task and scores", async () => {
    // A title over a line of text, a "Prompt" with the task, "How the essay is scored" notes, then four traits, 3–0.
    // As lists (narrative-traits.*): the DOCX keeps its heading levels, the PDF has none and wraps every descriptor
    // over two lines; Chromium's print of the HTML draws the bullets, so its lines read "3: Tells a story …". As a "Trait | 3 | 2 | 1 | 0" table (narrative-traits-table.*): the PDF's table runs onto a second
    // page, cutting the last row in two; the XLSX and CSV have the prompt in a row of its own right above the table.
    // Each trait a heading over its own "Score | Description" table (narrative-traits-scales.*), once read as one
    // holistic scale: Chromium's PDF cannot rebuild those tables (each number on its descriptor's first line).
    // Before: the DOCX title was a fifth criterion out of 10 and the task ran on into the traits; the PDF's wrapped
    // lines became criteria; the PDF table was not read as one (its header holds only numbers) and a row that wraps
    // with gaps between its lines broke apart; the spreadsheets read the prompt row as the table's header.
    const dir = new URL("../fixtures/rubrics/", import.meta.url);
    const rubric = async (file: string) => ({
      id: "ref_1",
      name: file,
      content: await extract(await Bun.file(new URL(file, dir)).bytes(), { filename: file }),
    });
    const files = ["narrative-traits.md", "narrative-traits.docx", "narrative-traits.pdf", "narrative-traits-chromium.pdf"].concat(
      ["docx", "pdf", "xlsx", "csv"].map((ext) => `narrative-traits-table.${ext}`),
      ["narrative-traits-scales.docx", "narrative-traits-scales-chromium.pdf"],
    );
    const rubrics = await Promise.all(files.map(rubric));
    // A table's level descriptors carry their column's name ("3: Tells a story …"); a list's do not.
    const shape = (doc: EngineDocument) =>
      findCriteria([doc.content], null).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => collapse(l.descriptor).replace(/^\d: /, ""))]);
    const md = shape(rubrics[0]);
    expect(md.map(([title]) => title)).toEqual(["Ideas", "Organization", "Style", "Conventions"]);
    expect(md[0][2]).toContain(
      "Tells a story that stays on the promise throughout and develops it with specific, vivid details about what happened and why it mattered.",
    );
    expect(md[3][2]).toContain("Spelling, capitalization, punctuation and grammar are correct almost everywhere for the grade level.");
    for (const [i, doc] of rubrics.entries()) expect([files[i], shape(doc)]).toEqual([files[i], md]);

    const story = await textDoc(
      "doc_story",
      "story.txt",
      `Last spring I promised my little brother that I would teach him to ride his bike before his birthday. Then the weather turned cold and I had exams, and every evening I wanted to stay inside. I kept the promise anyway. Every day after school we went to the empty parking lot behind the library, and I held the back of his seat while he wobbled. On the fourth day he fell and cut his knee, and he said he never wanted to try again. I told him that I had promised, and that a promise does not stop because it gets hard. The next week he rode the whole length of the lot by himself, and on his birthday he rode to our grandmother's house.`,
    );
    const offTopic = await textDoc("doc_trees", "trees.txt", STRONG_ESSAY);
    const verdict = (e: Evaluation) => [e.score, e.verdict, e.summary, e.criteria.map((x) => [x.title, x.score, x.max_score])];
    const firsts: Evaluation[] = [];
    for (const input of [story, offTopic]) {
      const all = await Promise.all(rubrics.map((r) => run([r], [input])));
      for (const [i, e] of all.entries()) expect([files[i], verdict(e)]).toEqual([files[i], verdict(all[0])]);
      firsts.push(all[0]);
    }
    // The task is the prompt's: the story about a promise passes; the essay on trees is asked about in its words.
    expect(firsts[0].verdict).toBe("pass");
    expect(firsts[1].verdict).not.toBe("pass");
    expect(firsts[1].summary).toContain("such as promise,");
  });

  test("levels named and valued on lines of text ('Excellent (3): …') under bold trait lines, and a 'Prompt:' label, read alike in DOCX and PDF", async () => {
    // No heading styles, no list: "Ideas (0–3 points)" in bold, then "Excellent (3): …" … "Inadequate (0): …" as
    // paragraphs, wrapped (and once cut by the page) in the PDF; the task after a bold "Prompt:" on its own line.
    const dir = new URL("../fixtures/rubrics/", import.meta.url);
    const docs = [];
    for (const file of ["narrative-traits-named.docx", "narrative-traits-named.pdf"])
      docs.push({ id: "ref_1", name: file, content: await extract(await Bun.file(new URL(file, dir)).bytes(), { filename: file }) });
    const shape = (doc: EngineDocument) =>
      findCriteria([doc.content], null).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => [l.value, collapse(l.descriptor)])]);
    const docx = shape(docs[0]);
    expect(docx.map(([title]) => title)).toEqual(["Ideas", "Organization", "Style", "Conventions"]);
    expect(docx[3][2]).toEqual([
      [0, "Inadequate: Errors make the story very hard to read."],
      [1, "Limited: Frequent errors in spelling, capitalization, punctuation or grammar slow the reader down."],
      [2, "Adequate: Errors in spelling, capitalization, punctuation or grammar appear but do not get in the way of reading."],
      [3, "Excellent: Spelling, capitalization, punctuation and grammar are correct almost everywhere for the grade level."],
    ]);
    expect(shape(docs[1])).toEqual(docx);
    // The task is the text after "Prompt:": an essay on trees is asked about in its words, and the pass line is the
    // level the rubric calls adequate.
    const trees = await run([docs[1]], [await textDoc("doc_trees", "trees.txt", STRONG_ESSAY)]);
    expect(trees.summary).toContain("such as promise,");
    expect(trees.summary).toContain("passes at 67, the level the rubric calls adequate");
  });

  test("a holistic scale as a 'Score | Description' table, or as 'Score 6' headings, in DOCX and PDF reads as the same scale as its Markdown list", async () => {
    // A PDF cannot rebuild this table's rows (a number beside a long paragraph): LibreOffice and Chromium give each
    // level's number on the line of its descriptor's first words ("6 A fully developed letter …"), under the
    // "Score Description" header; with the cells centred, the number comes alone before its descriptor. As "Score 6"
    // … "Score 1" headings over a paragraph each, a PDF gives "Score 6" as a line of its own. Before, the PDFs fell back
    // to the three generic criteria.
    const dir = new URL("../fixtures/rubrics/", import.meta.url);
    const files = [
      "holistic-letter-table.docx",
      "holistic-letter-table.pdf",
      "holistic-letter-table-chromium.pdf",
      "holistic-letter-table-centred.pdf",
      "holistic-letter-headings.docx",
      "holistic-letter-headings.pdf",
      "holistic-letter-headings-chromium.pdf",
    ];
    const docs = [await textDoc("ref_1", "guide.md", HOLISTIC_GUIDE)];
    for (const file of files)
      docs.push({ id: "ref_1", name: file, content: await extract(await Bun.file(new URL(file, dir)).bytes(), { filename: file }) });
    const scale = (doc: EngineDocument) =>
      findCriteria([doc.content], null).criteria.map((c) => [
        c.maxScore,
        c.levels?.map((l) => [l.value, collapse(l.descriptor).replace(/^(?:Score )?\d: /, "")]),
      ]);
    const md = scale(docs[0]);
    expect(md).toHaveLength(1);
    expect(md[0][1]).toHaveLength(6);
    for (const [i, doc] of docs.entries()) expect([i, scale(doc)]).toEqual([i, md]);
    for (const text of [THIN_LETTER, PLAIN_LETTER, STRONG_LETTER]) {
      const letter = await textDoc("doc_letter", "letter.txt", text);
      const scores = await Promise.all(docs.map(async (d) => (await run([d], [letter])).score));
      expect(scores).toEqual(scores.map(() => scores[0]));
    }
    // Without a score column's header, numbered lines are a report's sections, not a scale.
    const report = await criteriaOf(
      "report.txt",
      "Urban trees and summer heat\n\n1 Introduction\nCities are warmer than the land around them.\n2 Method\nWe measured forty streets in July.\n3 Results\nShaded streets were two degrees cooler.\n4 Discussion\nShade matters more than the number of trees.",
    );
    expect(report.source).toBe("generic");
  });

  test("an essay scores the same handed in as TXT, DOCX or PDF (LibreOffice's or Chromium's)", async () => {
    // A PDF's text breaks at every line of the page: its lines used to count as paragraphs (or its paragraphs as one
    // block), so the same essay was organised differently by format.
    const dir = new URL("../fixtures/essays/", import.meta.url);
    const guide = await textDoc("ref_holistic", "guide.md", HOLISTIC_GUIDE);
    const rubric = await textDoc("ref_1", "rubric.md", RUBRIC_MD);
    for (const [name, text, reference] of [
      ["strong-letter", STRONG_LETTER, guide],
      ["strong-essay", STRONG_ESSAY, rubric],
    ] as const) {
      const docs = [await textDoc("doc_1", `${name}.txt`, text)];
      for (const file of [`${name}.docx`, `${name}.pdf`, `${name}-chromium.pdf`, `${name}-indent.pdf`, `${name}-double.pdf`])
        docs.push({ id: "doc_1", name: file, content: await extract(await Bun.file(new URL(file, dir)).bytes(), { filename: file }) });
      const results = await Promise.all(docs.map((d) => run([reference], [d])));
      const seen = (e: Evaluation) => [e.score, e.verdict, e.criteria.map((c) => [c.title, c.score])];
      for (const [i, e] of results.entries()) expect([docs[i].name, seen(e)]).toEqual([docs[i].name, seen(results[0])]);
      // The paragraphs are counted as the TXT's in every format.
      const paragraphs = (e: Evaluation) => e.criteria.map((c) => /(\d+) paragraphs?/.exec(c.rationale)?.[1]);
      for (const [i, e] of results.entries()) expect([docs[i].name, paragraphs(e)]).toEqual([docs[i].name, paragraphs(results[0])]);
    }
  });

  test("rubrics as LibreOffice writes them (DOCX headings all at one level, PDF bullets as U+F0B7, PDF tables) are read as written", async () => {
    const dir = new URL("../fixtures/rubrics/", import.meta.url);
    const read = fixtureShape;
    const traits = [
      ["Ideas", 3, [0, 1, 2, 3]],
      ["Organization", 3, [0, 1, 2, 3]],
      ["Conventions", 3, [0, 1, 2, 3]],
    ];
    expect(await read("story-traits.docx")).toEqual(traits);
    expect(await read("story-traits.pdf")).toEqual(traits);
    const levels = ["Claim", "Evidence", "Counterargument", "Organization"].map((t) => [t, 4, [1, 2, 3, 4]]);
    expect(await read("argument-levels-table.docx")).toEqual(levels);
    // The same table in a PDF: its rows rebuilt from where the text sits (src/extract/pdf-layout.ts).
    expect(await read("argument-levels-table.pdf")).toEqual(levels);
    // A header over two rows ("Criteria" spanning both, "Performance levels" over the level columns), a title row
    // spanning the table, and a hyphen ending a line inside a word in the PDF.
    const merged = ["Position", "Support", "Conventions"].map((t) => [t, 4, [1, 2, 3, 4]]);
    expect(await read("merged-header-table.docx")).toEqual(merged);
    expect(await read("merged-header-table.pdf")).toEqual(merged);
    // Chromium's print at 11 pt draws each glyph on its own: the white between words is wider than the third of a line
    // that parts columns elsewhere, and every word was a cell (the generic criteria, or two of five).
    const essay = ["Thesis / Claim", "Evidence & Support", "Counterclaim", "Organization", "Conventions"].map((t) => [t, 4, [1, 2, 3, 4]]);
    for (const file of ["essay-levels-11pt-chromium.pdf", "essay-levels-11pt-sans-chromium.pdf", "essay-levels-plain-11pt-chromium.pdf"]) {
      expect([file, await read(file)]).toEqual([file, essay]);
      // The title above the table is its words, not its glyphs ("Ar umentative Essa Rubric" over "g y").
      const content = await extract(await Bun.file(new URL(file, dir)).bytes(), { filename: file });
      expect(content.text.split("\n")[0]).toBe("Argumentative Essay Rubric");
    }
    // A wrapped cell line of short letters ("every", "paragraph.") set apart from its row by Word's line spacing: it
    // ended the table, and the last row was lost.
    expect(await read("essay-levels-word-spacing.pdf")).toEqual(essay);
    // A table over three pages, its header repeated on each: the repeats were criteria ("Criteria"), and the rows after
    // the rest of a row the page break cut lost their levels (one was lost altogether).
    const thesis = [
      "Research question",
      "Literature review",
      "Theoretical framework",
      "Methodology",
      "Data collection",
      "Analysis",
      "Discussion",
      "Limitations",
      "Conclusion",
      "Citations and formatting",
    ].map((t) => [t, 4, [1, 2, 3, 4]]);
    expect(await read("thesis-levels-pages-chromium.pdf")).toEqual(thesis);
    // Word's paragraph spacing, turned into PDF: "Criteria" aligned to the top of two header rows and "Performance
    // Levels" over the level names touched them, one strip with two cells, and the first row was taken for the header.
    const research = ["Research Question", "Methodology", "Analysis of Data", "Conclusions"].map((t) => [t, 4, [1, 2, 3, 4]]);
    expect(await read("research-levels-merged-word.docx")).toEqual(research);
    expect(await read("research-levels-merged-word.pdf")).toEqual(research);
    // A bold name over its description in the criterion's cell: a PDF has no paragraphs, and the name ran on into it.
    // Set apart by Word's paragraph spacing (LibreOffice), or by its bold face alone (Chromium, a <br> between them;
    // at 11 pt, glyph by glyph, a row's lines were strips of their own and "Clear, few errors." two cells).
    const literary = ["Focus & Thesis", "Textual Evidence", "Analysis", "Style & Conventions"].map((t) => [t, 4, [1, 2, 3, 4]]);
    expect(await read("literary-bold-names-word.docx")).toEqual(literary.slice(0, 3));
    expect(await read("literary-bold-names-word.pdf")).toEqual(literary.slice(0, 3));
    expect(await read("literary-bold-names-chromium.pdf")).toEqual(literary);
    // A checklist whose header has more columns than its rows fill (the reviewer's "Present (Y/N)" and "Comments"): the
    // header was lost and the first clause became it; and "and jurisdiction", kerned, read as "andjurisdiction".
    const msa = await read("msa-checklist-chromium.pdf");
    expect(msa.map((c) => c[0])).toEqual([
      "Limitation of liability",
      "Indemnification",
      "Governing law and jurisdiction",
      "Confidentiality",
      "Data protection (GDPR Art. 28)",
      "Termination for convenience",
      "Force majeure",
      "Assignment and subcontracting",
    ]);
    // DOCX tables in the `docx` package's defaults (no paragraph spacing, no cell padding) turned into PDF: the rows
    // touch, and only the borders drawn between them part them. The whole table was one strip (the generic criteria,
    // or one "Expectations" criterion); and a label beside its points ("Summary of the plot | 25") was no row.
    const review = ["Job Knowledge", "Quality of Work", "Communication", "Initiative", "Teamwork"].map((t) => [t, 3, [1, 2, 3]]);
    expect(await read("performance-review-no-spacing.docx")).toEqual(review);
    expect(await read("performance-review-no-spacing.pdf")).toEqual(review);
    const report = [
      ["Summary of the plot", 25, null],
      ["Description of main characters", 20, null],
      ["Theme and its development", 25, null],
      ["Personal response with examples", 20, null],
      ["Spelling and grammar", 10, null],
    ];
    expect(await read("book-report-points-no-spacing.docx")).toEqual(report);
    expect(await read("book-report-points-no-spacing.pdf")).toEqual(report);
    // Two columns, each description over 25 words, between drawn borders: a table, not two columns of prose. Over two
    // pages: the row the break cuts has no border under it on the first, and its rest comes under the repeated header.
    const grant = "grant-review-two-columns-chromium.pdf";
    const evaluation = findCriteria([await extract(await Bun.file(new URL(grant, dir)).bytes(), { filename: grant })], null).criteria[5];
    expect(evaluation.description).toEndWith("consistent with the budget and the letters of support submitted with the application.");
    expect((await read(grant)).map(([title, max]) => [title, max])).toEqual([
      ["Statement of need", 20],
      ["Goals and objectives", 15],
      ["Project design", 20],
      ["Organisational capacity", 10],
      ["Partnerships", 10],
      ["Evaluation plan", 15],
      ["Budget and justification", 10],
    ]);
    // Over three pages with no header repeated: the rest of a cut row came in only the columns whose text ran over,
    // so it was loose text, the next criterion was lost and the rows after it were read on a 1–2 scale.
    expect(await read("literary-essay-pages-chromium.pdf")).toEqual(
      [
        "Introduction",
        "Thesis",
        "Use of Textual Evidence",
        "Analysis of Literary Devices",
        "Paragraph Structure",
        "Transitions",
        "Counterargument",
        "Conclusion",
        "Style and Voice",
        "Grammar and Mechanics",
      ].map((t) => [t, 5, [1, 2, 3, 4, 5]]),
    );
    // A deck: its title slide was a criterion out of 10 beside the four slides of criteria.
    expect(await read("presentation-slides.pptx")).toEqual(["Content", "Delivery", "Visual aids", "Teamwork"].map((t) => [t, 25, [5, 10, 18, 25]]));
  });

  test("a holistic scoring guide is one criterion on its scale, however its score points are written; notes on scoring are not criteria", async () => {
    const head = [
      "# Scoring guide: a persuasive letter",
      "",
      "## Prompt",
      "",
      "Write a letter to your newspaper about the effects computers have on people.",
      "",
      "## How the essay is scored",
      "",
      "- Each of two raters scores the essay from 1 to 6; the final score is their sum.",
      "- Placeholders such as @PERSON1 replace names: do not penalize them.",
      "",
    ];
    const points = [
      "An exceptional letter: a clear position, convincing support.",
      "A strong letter.",
      "An adequate letter.",
      "A limited letter.",
      "A weak letter.",
      "A very weak letter.",
    ];
    const asHeadings = [...head, "## Score points", "", ...points.flatMap((p, i) => [`### Score ${6 - i}`, p, ""])].join("\n");
    const asTable = [...head, "## Rubric", "", "| Score | Description |", "|---|---|", ...points.map((p, i) => `| ${6 - i} | ${p} |`)].join("\n");
    for (const [text, title] of [
      [asHeadings, "Score points"],
      [asTable, "Overall quality"],
    ]) {
      const { criteria } = await criteriaOf("guide.md", text);
      expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([[title, 6, [1, 2, 3, 4, 5, 6]]]);
      expect(criteria[0].description).toContain("exceptional letter");
    }
  });

  test("traits keep their levels however they are laid out: bold names, nested lists, level columns numbered only, levels as rows (numbered or named)", async () => {
    const levels = (name: string, top: string) => [`3: ${top}.`, "2: Mostly there.", "1: Barely there.", `0: No ${name.toLowerCase()}.`];
    const traits: [string, string][] = [
      ["Ideas", "Focused, with vivid details"],
      ["Organization", "A clear sequence of events"],
    ];
    const task = "## Prompt\n\nWrite a story about a time you were brave.\n\n";
    const bold = `# Rubric\n\n${task}${traits
      .map(
        ([n, t]) =>
          `**${n}**\n${levels(n, t)
            .map((l) => `- ${l}`)
            .join("\n")}\n`,
      )
      .join("\n")}`;
    const nested = `# Rubric\n\n${task}## Traits\n\n${traits
      .map(
        ([n, t]) =>
          `- ${n}\n${levels(n, t)
            .map((l) => `  - ${l}`)
            .join("\n")}`,
      )
      .join("\n")}\n`;
    const columns = `# Rubric\n\n${task}| Trait | 3 | 2 | 1 | 0 |\n|---|---|---|---|---|\n${traits.map(([n, t]) => `| ${n} | ${t} | Mostly there | Barely there | None |`).join("\n")}\n`;
    for (const text of [bold, nested, columns]) {
      const { criteria } = await criteriaOf("rubric.md", text);
      expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value), c.description.split("\n")[0]])).toEqual(
        traits.map(([n, t]) => [n, 3, [0, 1, 2, 3], text === columns ? t : `${t}.`]),
      );
    }
    // Levels as rows and criteria as columns ("| Score | Ideas | Organization |"): each column is a criterion.
    const transposed = `# Rubric\n\n${task}| Score | ${traits.map(([n]) => n).join(" | ")} |\n|---|---|---|\n${[3, 2, 1, 0]
      .map((v) => `| ${v} | ${traits.map(([n, t]) => (v === 3 ? t : v === 0 ? `No ${n.toLowerCase()}` : "Partly there")).join(" | ")} |`)
      .join("\n")}\n`;
    expect(
      (await criteriaOf("rubric.md", transposed)).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value), c.description]),
    ).toEqual(traits.map(([n, t]) => [n, 3, [0, 1, 2, 3], t]));
    // The same with the levels named in words, best first or best last.
    const names = ["Beginning", "Developing", "Proficient", "Exemplary"];
    const worded = transposed.replace(/^\| Score \|/m, "| Level |").replace(/^\| (\d) \|/gm, (_, v) => `| ${names[Number(v)]} |`);
    const rows = worded.trimEnd().split("\n");
    const reversed = [...rows.slice(0, -4), ...rows.slice(-4).reverse()].join("\n");
    for (const table of [worded, reversed]) {
      const read = (await criteriaOf("rubric.md", table)).criteria;
      expect(read.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual(traits.map(([n]) => [n, 4, [1, 2, 3, 4]]));
      expect(read[0].description).toBe(traits[0][1]);
    }
    // Level columns headed with their points ("4 pts" … "1 pt").
    const pts = `# Rubric\n\n${task}| Criterion | 3 pts | 2 pts | 1 pt | 0 pts |\n|---|---|---|---|---|\n${traits.map(([n, t]) => `| ${n} | ${t} | Mostly there | Barely there | None |`).join("\n")}\n`;
    expect((await criteriaOf("rubric.md", pts)).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual(
      traits.map(([n]) => [n, 3, [0, 1, 2, 3]]),
    );
    // Level cells that carry their own points ("10 points: …") under columns named in words, one of them "Needs work".
    const own = `# Rubric\n\n${task}| Category | Excellent | Good | Needs work |\n|---|---|---|---|\n${traits.map(([n, t]) => `| ${n} | 10 points: ${t}. | 7 points: mostly there. | 3 points: barely there. |`).join("\n")}\n`;
    expect((await criteriaOf("rubric.md", own)).criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual(
      traits.map(([n]) => [n, 10, [3, 7, 10]]),
    );
    // "A score of 4: …" names a level too.
    const scoreOf = `# Rubric\n\n${task}## Scoring\n\n${[4, 3, 2, 1, 0].map((v) => `- A score of ${v}: ${v === 2 ? "an adequate" : "a"} response.`).join("\n")}\n`;
    expect((await criteriaOf("rubric.md", scoreOf)).criteria.map((c) => [c.title, c.maxScore])).toEqual([["Overall quality", 4]]);
  });

  test("lines with leader dots and points are criteria named without their dots; the total line is not one", async () => {
    const text =
      "Essay marking scheme\n\nThesis statement .............. 10 pts\nSupporting evidence ........... 20 pts\nGrammar and mechanics ......... 10 pts\nTotal ......................... 40 pts\n";
    expect((await criteriaOf("scheme.txt", text)).criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Thesis statement", 10],
      ["Supporting evidence", 20],
      ["Grammar and mechanics", 10],
    ]);
  });

  test("a checklist table states its criteria in its rows ('Requirement | Yes | No | Notes', the other cells empty)", async () => {
    const requirements = ["Governing law clause names a jurisdiction", "Limitation of liability is capped", "Termination with 30 days notice"];
    const text = `# Contract review checklist\n\n| Requirement | Yes | No | Notes |\n|---|---|---|---|\n${requirements.map((r) => `| ${r} | | | |`).join("\n")}\n`;
    const { criteria, source } = await criteriaOf("checklist.md", text);
    expect(source).toBe("references");
    expect(criteria.map((c) => c.title)).toEqual(requirements);
    // A two-column table of short keys and values is still not a rubric.
    const keys = await criteriaOf("facts.md", "| Field | Value |\n|---|---|\n| Author | Jo Smith |\n| Subject | Biology |\n| Form | Essay |\n");
    expect(keys.source).toBe("generic");
  });

  test("without a rubric, the prompt's checks are the criteria (instructions about quoting left out); without either, a generic set", () => {
    const prompt =
      "Evaluate the essay.\n\nCheck:\n- Thesis: is there a clear, arguable claim?\n- Evidence: is each point backed by specific evidence?\n\n" +
      "Evidence:\n- Support every judgement with a quote copied verbatim from the input document.\n";
    const fromPrompt = findCriteria([], prompt);
    expect(fromPrompt.source).toBe("prompt");
    expect(fromPrompt.criteria.map((c) => c.title)).toEqual(["Thesis", "Evidence"]);
    const generic = findCriteria([], "Is this any good?");
    expect(generic.source).toBe("generic");
    expect(generic.criteria.map((c) => c.title)).toEqual(["Relevance and coverage", "Evidence and support", "Clarity and organisation"]);
  });
});

describe("scoring", () => {
  test("an essay that addresses the rubric scores higher, overall and on each criterion it covers, than an off-topic one", async () => {
    const rubric = await textDoc("ref_rubric", "rubric.md", RUBRIC_MD);
    const strong = await run([rubric], [await textDoc("doc_strong", "strong.txt", STRONG_ESSAY)]);
    const weak = await run([rubric], [await textDoc("doc_weak", "weak.txt", WEAK_ESSAY)]);

    expect(strong.score).toBeGreaterThan(weak.score + 30);
    expect(strong.verdict).toBe("pass");
    expect(weak.verdict).toBe("fail");
    expect(strong.criteria.map((c) => c.title)).toEqual(["Thesis", "Evidence", "Counterargument", "Organisation", "Conventions"]);
    for (const id of ["thesis", "evidence", "counterargument", "organisation"]) {
      const s = strong.criteria.find((c) => c.id === id)!;
      const w = weak.criteria.find((c) => c.id === id)!;
      expect(s.score).toBeGreaterThan(w.score);
      expect(s.score).toBeLessThanOrEqual(s.max_score);
    }
    // The overall score is the points earned as a share of the points available.
    const earned = strong.criteria.reduce((n, c) => n + c.score, 0);
    expect(strong.score).toBe(Math.round((100 * earned) / 100));

    const evidence = strong.criteria.find((c) => c.id === "evidence")!;
    expect(evidence.rationale).toMatch(/stormwater/);
    expect(evidence.evidence.length).toBeGreaterThan(0);
    expect(evidence.evidence.length).toBeLessThanOrEqual(3);
    const counter = strong.criteria.find((c) => c.id === "counterargument")!;
    expect(counter.evidence.some((e) => e.quote.includes("roots damage pavements"))).toBe(true);
    // The strong essay was written to meet every top descriptor: it reaches the top of every criterion.
    expect(strong.score).toBe(100);
    expect(strong.summary).toMatch(/Every criterion scored the same share|Strongest: .+\. Weakest: /);
    expect(weak.criteria.find((c) => c.id === "evidence")!.rationale).toMatch(/missing: /);
  });

  test("a holistic guide whose levels name qualities, not words: a strong response passes with its sentences about the task quoted", async () => {
    const guide = [
      "# Reading response",
      "",
      "## Prompt",
      "",
      "Explain how the harsh winter setting shapes the choices of the lighthouse keeper in the story. Use details from the story.",
      "",
      "## Score points",
      "",
      "- Score 3: Shows a full grasp of the text's complexities, meets every demand of the question and goes beyond the literal.",
      "- Score 2: Shows a partial or literal grasp; meets the question's demands unevenly.",
      "- Score 1: Shows minimal grasp; may misread the text or the question.",
      "- Score 0: Irrelevant, incorrect, or blank.",
    ].join("\n");
    const strong =
      "The harsh winter setting forces the lighthouse keeper into every hard choice he makes. Because the storm cuts the island off, he must ration the lamp oil, and he decides to keep the light burning only on the nights the fishing boats are out. " +
      "The ice on the stairs makes each climb dangerous, yet he still climbs, which shows that his duty matters more to him than his safety. " +
      "When the supply boat cannot reach the island through the winter ice, he shares his last food with the stranded sailor, so the setting tests his kindness as well as his courage. " +
      "The story suggests that the cold does not only threaten the keeper; it reveals who he is.";
    const reference = await textDoc("ref_guide", "guide.md", guide);
    const good = await run([reference], [await textDoc("doc_good", "good.txt", strong)]);
    const blank = await run([reference], [await textDoc("doc_blank", "blank.txt", "I like pizza and my dog.")]);
    expect(good.criteria.map((c) => [c.title, c.max_score])).toEqual([["Score points", 3]]);
    expect(good.criteria[0].score).toBeGreaterThanOrEqual(2);
    // Its levels share no word with the response, so the quotes are the response's sentences about the task; without
    // them, every passing response to such a guide was left to a person.
    expect(good.verdict).toBe("pass");
    const quotes = good.criteria[0].evidence.map((e) => e.quote);
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) expect(strong).toContain(q);
    expect(quotes.some((q) => /winter|keeper|setting/i.test(q))).toBe(true);
    expect(blank.verdict).toBe("fail");
    expect(blank.criteria[0].evidence).toEqual([]);
    // Under a plain "Rubric" heading the scale is named by Assay ("Overall quality"): those words are not looked for.
    const named = await textDoc("ref_guide2", "guide.md", guide.replace("## Score points", "## Rubric"));
    const overall = await run([named], [await textDoc("doc_good", "good.txt", strong)]);
    expect(overall.criteria[0].title).toBe("Overall quality");
    expect(overall.criteria[0].rationale).not.toMatch(/quality/);
    // A craft word in one level ("support") is a detail of that level, not a quality the whole scale grades by.
    const supported = await textDoc(
      "ref_guide3",
      "guide.md",
      guide.replace("meets the question's demands unevenly", "meets the question's demands unevenly, with some support"),
    );
    expect((await run([supported], [await textDoc("doc_good", "good.txt", strong)])).verdict).toBe("pass");
  });

  test("the same documents give the same evaluation every time", async () => {
    const rubric = await textDoc("ref_rubric", "rubric.md", RUBRIC_MD);
    const essay = await textDoc("doc_strong", "strong.txt", STRONG_ESSAY);
    expect(await run([rubric], [essay])).toEqual(await run([rubric], [essay]));
  });

  test("with a corpus README as the reference, a document about the same software beats an unrelated one", async () => {
    const readme = await corpusDoc("ref_readme", "md/tika-README.md");
    const about = await run([readme], [await corpusDoc("doc_tika", "pdf/tika-testPDF.pdf")]);
    const unrelated = await run([readme], [await corpusDoc("doc_festival", "pdf/pdfjs-issue840.pdf")]);
    expect(about.criteria.length).toBeGreaterThan(3);
    expect(about.score).toBeGreaterThan(unrelated.score);
  });
});

describe("citations", () => {
  // One of each structure: pages, slides, sheets, rows, headings, JSON paths, XML elements.
  const FILES = [
    "pdf/tika-testPDF-protected.pdf",
    "docx/tika-testWORD-various.docx",
    "pptx/tika-testPPT-various2.pptx",
    "xlsx/tika-test-columnar.xlsx",
    "xls/tika-testEXCEL.xls",
    "csv/tika-test-columnar.csv",
    "md/mammoth-README.md",
    "json/corpora-planets.json",
    "xml/tika-testTEI.xml",
  ];
  const manifest = JSON.parse(readFileSync(path.join(CORPUS, "manifest.json"), "utf8")) as { file: string; expected_phrases: string[] }[];

  for (const file of FILES) {
    test(`${file}: every quote is verbatim text of the document, located in the section that holds it`, async () => {
      const doc = await corpusDoc("doc_input", file);
      // A rubric asking for what the manifest says the file contains: one criterion per expected phrase.
      const phrases = manifest.find((m) => m.file === file)!.expected_phrases;
      const rubric = await textDoc("ref_rubric", "rubric.md", phrases.map((p) => `## ${p} (5 points)\nMentions ${p}.\n`).join("\n"));
      const result = await run([rubric], [doc]);
      expect(result.criteria).toHaveLength(phrases.length);
      const sections = placeSections(doc);
      const quotes = result.criteria.flatMap((c) => c.evidence);
      expect(quotes.length).toBeGreaterThanOrEqual(phrases.length);
      for (const e of quotes) {
        expect(e.document_id).toBe("doc_input");
        expect(doc.content.text.includes(e.quote)).toBe(true);
        // A line can occur twice (a heading repeated in the text): one of its occurrences is in the named section.
        const holders = sections.filter((s) => doc.content.text.slice(s.start, s.end).includes(e.quote));
        expect(holders.map((s) => s.location)).toContainEqual(e.location);
        const format = doc.content.format;
        if (format === "pdf") {
          expect(e.location.page).toBeGreaterThanOrEqual(1);
          expect(e.location.page).toBeLessThanOrEqual(doc.content.page_count!);
        }
        if (format === "pptx") expect(e.location.slide).toBeGreaterThanOrEqual(1);
        if (format === "xlsx" || format === "xls") expect(typeof e.location.sheet).toBe("string");
        if (format === "json" || format === "xml") expect(typeof e.location.section).toBe("string");
      }
      // The criterion about a phrase quotes the passage holding it.
      const first = result.criteria[0];
      expect(first.evidence.some((e) => collapse(e.quote).toLowerCase().includes(phrases[0].toLowerCase().split(" ")[0]))).toBe(true);
    });
  }
});

describe("verdict", () => {
  const quote = { document_id: "doc_1", quote: "A sentence of the work.", location: {} };
  const traits = (...scores: number[]) =>
    scores.map((score, i) => ({ id: `t${i}`, title: `Trait ${i}`, score, max_score: 3, rationale: "", evidence: [quote] }));
  const line = { share: 2 / 3, source: "levels" as const };
  const onTopic = { little: false };
  const scoreOf = (c: { score: number }[]) => Math.round((100 * c.reduce((n, x) => n + x.score, 0)) / (3 * c.length));

  test("pass at or above the line, fail below it", () => {
    expect(decide(scoreOf(traits(2, 2, 2, 2)), line, traits(2, 2, 2, 2), onTopic)).toBe("pass");
    expect(decide(scoreOf(traits(2, 2, 2, 1)), line, traits(2, 2, 2, 1), onTopic)).toBe("fail");
  });

  test("at the line, criteria at opposite ends (one at its top, one at its bottom) leave it to a person; a spread of two levels does not", () => {
    expect(decide(scoreOf(traits(3, 3, 2, 0)), line, traits(3, 3, 2, 0), onTopic)).toBe("needs_review");
    expect(decide(scoreOf(traits(2, 1, 2, 3)), line, traits(2, 1, 2, 3), onTopic)).toBe("pass");
    // Far from the line the score decides, whatever the spread.
    expect(decide(scoreOf(traits(3, 3, 3, 0)), line, traits(3, 3, 3, 0), onTopic)).toBe("pass");
  });

  test("a pass that rests on criteria nothing could be quoted for, or on work that says little about its task, needs review", () => {
    const unquoted = traits(3, 3, 3, 3).map((c, i) => (i < 3 ? { ...c, evidence: [] } : c));
    expect(decide(100, line, unquoted, onTopic)).toBe("needs_review");
    expect(decide(100, line, traits(3, 3, 3, 3), { little: true })).toBe("needs_review");
    // A fail is a fail: nothing is left to a person.
    expect(decide(20, line, traits(1, 0, 1, 0), { little: true })).toBe("fail");
  });
});

describe("spelling", () => {
  test("misspellings lower the conventions criterion, name the words, and leave the other criteria alone", async () => {
    const rubric = await textDoc("ref_rubric", "rubric.md", RUBRIC_MD);
    // The same essay with one word in about twenty misspelled (each a common slip, none a real word).
    const slips: [string, string][] = [
      ["because", "becuase"],
      ["cheapest", "cheepest"],
      ["temperatures", "temperatuers"],
      ["according", "acording"],
      ["summer", "sumer"],
      ["particles", "particels"],
      ["thousands", "thousends"],
      ["reduces", "reduses"],
      ["property", "proprety"],
      ["people", "peple"],
      ["maintenance", "maintenence"],
      ["practical", "practicle"],
      ["approve", "aprove"],
    ];
    let sloppy = STRONG_ESSAY;
    for (const [right, wrong] of slips) sloppy = sloppy.replace(right, wrong);
    const clean = await run([rubric], [await textDoc("doc_a", "essay.txt", STRONG_ESSAY)]);
    const misspelled = await run([rubric], [await textDoc("doc_a", "essay.txt", sloppy)]);
    const conventions = (e: Evaluation) => e.criteria.find((c) => c.title === "Conventions") as Evaluation["criteria"][number];
    expect(conventions(misspelled).score).toBeLessThan(conventions(clean).score);
    // A word list misses some real words (compounds such as "stormwater"): a small rate is no penalty worth a level.
    expect(conventions(clean).rationale).toContain("2 of 204 lower-case words not in the English word list (stormwater)");
    expect(conventions(misspelled).rationale).toContain("becuase");
    const thesis = (e: Evaluation) => e.criteria.find((c) => c.title === "Thesis")?.score;
    expect(thesis(misspelled)).toBe(thesis(clean));
  });
});
