// Scores mean what the rubric means: criteria on the rubric's own scale, verdicts at its pass line, a strong piece passes.
import { describe, expect, test } from "bun:test";
import { CommentRangeEnd, CommentRangeStart, CommentReference, Document, Header, Packer, Paragraph, TextRun } from "docx";
import { findCriteria } from "../../src/engine/local/criteria";
import { evaluateLocally } from "../../src/engine/local/evaluate";
import { writingSignals } from "../../src/engine/local/signals";
import { topicTermsOf } from "../../src/engine/local/terms";
import { levelPassShare, passLevel, statedPassShare } from "../../src/engine/local/verdict";
import { passagesOf } from "../../src/engine/passages";
import type { EngineDocument, Evaluation } from "../../src/engine/types";
import { extract } from "../../src/extract";
import {
  HOLISTIC_GUIDE,
  LONG_PLAIN_LETTER,
  PLAIN_LETTER,
  RUBRIC_MD,
  run,
  STRONG_ESSAY,
  STRONG_LETTER,
  THIN_LETTER,
  textDoc,
  WEAK_ESSAY,
} from "./fixtures";

// A descriptor rubric with levels 0–3 per trait, written for these tests.
const LEVEL_RUBRIC = `# Narrative writing: a story about kindness

## Task

Write a story about a time when you or someone you know showed kindness to a stranger, a neighbour or a friend.

## Traits

### Ideas
- 3: Tells a story about kindness with ideas that are clearly focused and thoroughly developed with specific, relevant details.
- 2: Tells a story about kindness with ideas that are adequately focused and developed with some specific details.
- 1: Ideas are minimally focused on kindness and developed with limited details.
- 0: Ideas are not focused on the task.

### Organization
- 3: Events are clearly and logically sequenced, with smooth connections between them.
- 2: Events are logically sequenced; connections are adequate.
- 1: Sequence and connections between events are weak.
- 0: No organization evident.

### Conventions
- 3: Consistent, correct grammar, spelling, capitalization and punctuation.
- 2: Adequate grammar, spelling, capitalization and punctuation.
- 1: Limited control of grammar, spelling and punctuation.
- 0: Errors make the story hard to read.
`;

const KIND_STORY = `Last winter, the snow came early to our street, and I learned what kindness really looks like.

Our neighbour, Mrs. Alvarez, is eighty-one and lives alone in the yellow house on the corner. One morning I noticed that her path had not been cleared and that her newspapers were piling up on the step. My mother said she had hurt her wrist the week before, so she could not hold a shovel.

First, I went over with my brother and we shovelled her path and her steps. It took almost an hour, because the snow was heavy and wet, and our hands were freezing by the end. When she opened the door, she was surprised and a little embarrassed. She kept saying that we did not have to do it. However, we told her that we wanted to, and that neighbours should help each other.

After that, we made a plan. Every day before school, one of us checked her step, brought in her newspaper and asked whether she needed anything from the shop. Sometimes we carried her groceries; once we fixed the latch on her gate, which had been banging in the wind for days. In return she taught us how to make her famous cinnamon bread, and she told us stories about growing up by the sea.

By the time the snow melted in March, Mrs. Alvarez's wrist had healed, but we kept visiting her anyway. Helping her took only a little time each day, yet it changed how I see the people who live around me. Kindness, I realised, is not a grand gesture: it is noticing someone who needs help and doing something about it, again and again.

In the end, the kindness went both ways. We cleared a path through the snow, and she opened her door and her kitchen to us. I still think about that winter whenever I see an unshovelled step on our street.
`;

const OFF_TOPIC = `The water cycle has four stages. Water evaporates from oceans, condenses into clouds, falls as precipitation and collects in rivers and lakes.`;

const rubric = await textDoc("ref_levels", "rubric.md", LEVEL_RUBRIC);

describe("scores on the rubric's scale", () => {
  test("a criterion's max_score equals the rubric's scale (levels 0–3 under each trait heading), described by the top level", async () => {
    const { criteria } = findCriteria([rubric.content], null);
    expect(criteria.map((c) => [c.title, c.maxScore])).toEqual([
      ["Ideas", 3],
      ["Organization", 3],
      ["Conventions", 3],
    ]);
    expect(criteria[0].description).toContain("thoroughly developed");
    expect(criteria[0].levels?.map((l) => l.value)).toEqual([0, 1, 2, 3]);
    const out = await run([rubric], [await textDoc("doc_story", "story.txt", KIND_STORY)]);
    for (const c of out.criteria) {
      expect(c.max_score).toBe(3);
      expect([0, 1, 2, 3]).toContain(c.score); // a level the rubric defines, not a fraction of one
    }
  });

  test("a strong story against the level rubric passes; an off-topic text and a blank-ish one fail", async () => {
    const strong = await run([rubric], [await textDoc("doc_story", "story.txt", KIND_STORY)]);
    expect(strong.verdict).toBe("pass");
    expect(strong.score).toBeGreaterThanOrEqual(67);
    expect(strong.summary).toContain("the level the rubric calls adequate");
    const off = await run([rubric], [await textDoc("doc_off", "off.txt", OFF_TOPIC)]);
    expect(off.verdict).toBe("fail");
    expect(off.score).toBeLessThan(strong.score);
    const blank = await run([rubric], [await textDoc("doc_blank", "blank.txt", "kindness")]);
    expect(blank.verdict).toBe("fail");
    expect(blank.score).toBeLessThanOrEqual(34);
  });

  test("the score is the share of the rubric's maximum the criteria earned", async () => {
    const out = await run([rubric], [await textDoc("doc_story", "story.txt", KIND_STORY)]);
    const earned = out.criteria.reduce((n, c) => n + c.score, 0);
    const max = out.criteria.reduce((n, c) => n + c.max_score, 0);
    expect(out.score).toBe(Math.round((100 * earned) / max));
  });
});

describe("a holistic scale", () => {
  // One scale whose levels describe the whole letter: it is judged on every quality its levels name (position,
  // support, organisation, language), held down by relevance to the task. It used to take only the quality its top
  // level named most and count relevance as a quality, so every long on-topic text reached the top level.
  test("levels follow support and structure, not length and topic alone: a long letter repeating one reason stays below a developed one", async () => {
    const guide = await textDoc("ref_holistic", "guide.md", HOLISTIC_GUIDE);
    const level = async (text: string) => (await run([guide], [await textDoc("doc_letter", "letter.txt", text)])).criteria;
    const [thin, plain, long, strong] = await Promise.all([THIN_LETTER, PLAIN_LETTER, LONG_PLAIN_LETTER, STRONG_LETTER].map(level));
    expect(strong.map((c) => [c.title, c.max_score])).toEqual([["Score points", 6]]);
    expect(strong[0].score).toBeGreaterThanOrEqual(5);
    expect(long[0].score).toBeLessThan(strong[0].score);
    expect(plain[0].score).toBeLessThan(strong[0].score);
    expect(thin[0].score).toBeLessThanOrEqual(plain[0].score);
    expect(thin[0].score).toBeLessThanOrEqual(2);
    expect(strong[0].rationale).toContain("Writing signals for evidence, organisation, language, argument:");
  });

  test("a scale named for the whole work beside another ('Writing applications', 'Language conventions') is holistic too", async () => {
    // ASAP set 2's guide: two domains. Its writing domain was judged like a subject criterion, by relevance, so every
    // on-topic letter of some length got 6 of 6 (95 essays people scored 1 to 5 all did).
    const twoDomains = HOLISTIC_GUIDE.replace("## Score points", "## Domains\n\n### Writing applications").concat(
      "\n### Language conventions\n\n",
      "- 4: A superior command of grammar, usage, spelling, capitalization and punctuation; no errors that impair communication.\n",
      "- 3: A good command of the conventions; errors are of the first-draft kind.\n",
      "- 2: A fair command of the conventions; errors may impair the flow of communication.\n",
      "- 1: A minimal command of the conventions; frequent, severe errors impair communication.\n",
    );
    const guide = await textDoc("ref_domains", "guide.md", twoDomains);
    const writing = async (text: string) => (await run([guide], [await textDoc("doc_letter", "letter.txt", text)])).criteria[0];
    const [thin, long, strong] = await Promise.all([THIN_LETTER, LONG_PLAIN_LETTER, STRONG_LETTER].map(writing));
    expect([strong.title, strong.max_score]).toEqual(["Writing applications", 6]);
    expect(strong.score).toBeGreaterThanOrEqual(5);
    expect(long.score).toBeLessThan(strong.score);
    expect(thin.score).toBeLessThanOrEqual(2);
    expect(strong.rationale).toContain("Writing signals for evidence, organisation, language, argument:");
  });

  test("a CV's 'Overall impression' beside 'Skills' is about the candidate: only written work's whole-work scale is holistic", async () => {
    const guide = await textDoc(
      "ref_screen",
      "screen.md",
      [
        "# Screening: data analyst",
        "",
        "## Skills",
        "- 3: SQL, Python and dashboards, each shown in a role.",
        "- 2: Two of SQL, Python and dashboards.",
        "- 1: One of them.",
        "",
        "## Overall impression",
        "- 3: A strong analyst for the team: clear, well organised experience with analytics results in every role.",
        "- 2: A plausible analyst: clear experience, some analytics results.",
        "- 1: A weak match: little analytics experience.",
      ].join("\n"),
    );
    const cv = await textDoc(
      "doc_cv",
      "cv.txt",
      "Jordan Lee\nData analyst\n\nExperience\nAnalyst, Northwind Retail, 2021–2026: built SQL pipelines and Python models; dashboards for the sales team cut weekly reporting from two days to one hour.\nJunior analyst, Contoso Bank, 2019–2021: SQL reports and analytics for risk.\n",
    );
    // "Overall impression" is a criterion, not the rubric's total ("Overall", "Overall score"), which it was read as.
    expect((await run([guide], [cv], null, "hr")).criteria.map((c) => c.title)).toEqual(["Skills", "Overall impression"]);
    const table = await textDoc(
      "ref_table",
      "points.md",
      "| Criterion | Points |\n| --- | --- |\n| Skills | 10 |\n| Overall impression | 10 |\n| Overall score | 20 |\n| Overall points | 20 |\n| Overall | 20 |\n",
    );
    expect(findCriteria([table.content], null).criteria.map((c) => c.title)).toEqual(["Skills", "Overall impression"]);
    const overall = async (product: string) => (await run([guide], [cv], null, product)).criteria[1];
    // Screening a CV, the scale is read as what it asks for (its key terms: analyst, experience, results …).
    expect((await overall("hr")).rationale).toContain("key terms");
    // In written work the same title names the writing as a whole: judged by its qualities, not its words.
    expect((await overall("education")).rationale).not.toContain("key terms");
  });

  test("levels that name the subject earn no extra credit for repeating it: the same letters get the same levels", async () => {
    // The same guide with the task's own words written into every level ("… sleep, tired mornings and the school
    // bus"). A letter that uses those words in several passages used to get up to a level more for it.
    const plainGuide = await textDoc("ref_holistic", "guide.md", HOLISTIC_GUIDE);
    const wordyGuide = await textDoc(
      "ref_holistic",
      "guide.md",
      HOLISTIC_GUIDE.replace(/^- (\d): /gm, "- $1: A letter about students, sleep, tired mornings and the school bus. "),
    );
    for (const text of [THIN_LETTER, PLAIN_LETTER, LONG_PLAIN_LETTER, STRONG_LETTER]) {
      const letter = await textDoc("doc_letter", "letter.txt", text);
      const [plain, wordy] = await Promise.all([run([plainGuide], [letter]), run([wordyGuide], [letter])]);
      expect(wordy.criteria.map((c) => c.score)).toEqual(plain.criteria.map((c) => c.score));
    }
  });

  test("a well-written essay on another subject fails a holistic guide instead of reaching its upper levels", async () => {
    const guide = await textDoc("ref_holistic", "guide.md", HOLISTIC_GUIDE);
    const off = await run([guide], [await textDoc("doc_off", "essay.txt", STRONG_ESSAY)]);
    const on = await run([guide], [await textDoc("doc_letter", "letter.txt", STRONG_LETTER)]);
    expect(off.verdict).toBe("fail");
    expect(off.score).toBeLessThan(on.score - 30);
  });
});

describe("a task's words as the response uses them", () => {
  test("a response about the story's setting shares the task's word 'setting' (it is not the verb 'set')", async () => {
    // Porter stems "setting" to "set", an everyday verb that never counts as a topic word: a response about the setting
    // that says "rider" and "hills" instead of "cyclist" and "features" shared no word with its task, was held down to
    // 40 %, and failed (ASAP set 3: two answers people gave full marks scored 1 of 3).
    const guide = await textDoc(
      "ref_reading",
      "guide.md",
      [
        "# Reading response",
        "",
        "## Prompt",
        "",
        "Write a response that explains how the features of the setting affect the cyclist. In your response, include examples from the essay that support your conclusion.",
        "",
        "## Score points",
        "",
        "- 3: Shows an understanding of the complexities of the text and goes beyond the literal.",
        "- 2: Shows a partial or literal understanding of the text.",
        "- 1: Shows a minimal understanding of the text.",
        "- 0: Irrelevant, incorrect, or blank.",
      ].join("\n"),
    );
    const answer =
      "The setting makes the ride harder at every turn. The road runs through empty desert, so there is no shade and no town for miles. " +
      "The heat of the afternoon dries the rider's water bottles long before he finds a place to fill them, and the hills that rise one after another drain the strength from his legs. " +
      "When he reaches an abandoned factory instead of the shop he hoped for, the setting crushes his hope as well as his body. " +
      "Only when a bait shop appears at the bottom of a hill does the landscape give him back some of what it took.";
    const out = await run([guide], [await textDoc("doc_answer", "answer.txt", answer)]);
    expect(out.summary).not.toContain("shares no words with the task's topic");
    expect(out.verdict).toBe("pass");
    // Everyday by the word as written: "kindness" and "feelings" name a subject though they stem to "kind" and "feel";
    // "things" and "make" do not.
    expect(topicTermsOf("Write about the kindness, feelings and setting of the things you make.")).toEqual(["kind", "feel", "set"]);
  });

  test("a story about being impatient uses the task's word 'patience' (Porter leaves 'impatient' no stem in common with it)", async () => {
    // A story told about impatience shared no word with a task about patience, so a well-told one that people passed
    // was left to a person as possibly off-topic (ASAP set 7: an essay scored 17 of 24).
    const guide = await textDoc(
      "ref_patience",
      "rubric.md",
      LEVEL_RUBRIC.replace(
        /# Narrative writing: a story about kindness\n\n## Task\n\n.*\n/,
        [
          "# Narrative writing: a story about patience",
          "",
          "## Task",
          "",
          "Write about patience. A patient person is understanding and tolerant, and faces difficulties without complaining. Tell a story about a time when you or someone you know was patient.",
          "",
        ].join("\n"),
      ).replaceAll("kindness", "patience"),
    );
    const story = [
      "Last spring my little brother Leo decided that he would learn to ride a bike before his seventh birthday, and I was the one who had to teach him.",
      "",
      "On the first afternoon I was impatient from the start. I held the back of his seat, ran beside him along the path in the park, and let go far too early. He wobbled, tipped over into the grass and cried. I told him to stop being a baby, which made everything worse, and we walked home without a word.",
      "",
      "That night my father asked me how it went. When I explained, he reminded me that somebody had once spent a whole summer running beside my own bike. I felt ashamed, because I knew he was right.",
      "",
      "The next day I tried again, slowly this time. First we practised gliding with his feet just above the ground. Then I kept one hand on his shoulder for ten minutes, then for five, then only for a few steps. Whenever he fell, I helped him up, checked his knees and told him what he had done well.",
      "",
      "After a week, Leo rode all the way around the pond on his own. He shouted my name as he passed, and I realised that the slow days had taught me as much as they had taught him. Being impatient had cost us a whole afternoon; going slowly had given him a bike he could ride.",
    ].join("\n");
    const out = await run([guide], [await textDoc("doc_story", "story.txt", story)]);
    expect(out.summary).not.toContain("shares no words with the task's topic");
    expect(out.verdict).toBe("pass");
  });
});

describe("a task stated in many words", () => {
  // A holistic 1–5 scale under a task that names its subject in full, as teachers write them (a spreadsheet's "Task:" row).
  const LETTER_GUIDE = [
    "# Grade 8 persuasive letter (holistic)",
    "",
    "Task: The Eastbrook Borough Council plans to cut the opening hours of the Quarry Lane branch library to three days a week to reduce costs. Write a letter to the council that takes a clear position on the plan and persuades the councillors, supported by facts, examples or personal experience (250-400 words).",
    "",
    "Score | Description",
    "5 | Takes a clear, compelling position early. Three or more well-developed reasons with specific facts or figures. Answers an opposing view. Logical organisation, a formal tone, very few errors.",
    "4 | Takes a clear position. At least two reasons with relevant details. Organised, with transitions. Minor errors.",
    "3 | States a position. Reasons are general or based on opinion. Organisation is mostly clear. Some errors.",
    "2 | The position is unclear. Reasons are listed with little support. Weak organisation. Frequent errors.",
    "1 | Does not address the task (writes about a different topic or to a different audience). Little organisation.",
    "",
    "Passing: a score of 3 or higher.",
  ].join("\n");
  const ON_TOPIC = [
    "Dear Members of the Borough Council,",
    "",
    "I am writing to ask you not to cut the opening hours of the Quarry Lane library. I understand that Eastbrook must reduce its costs, but the library gives the town far more than it costs.",
    "",
    "First, the library is where many students do their homework. Last year more than 300 pupils from Eastbrook Middle School used its computers after school, because many families have no printer or fast internet at home. On three days a week, they would have nowhere to go.",
    "",
    "Second, the library helps older residents. My grandmother attends the Tuesday reading group and the computer class there, and for her it is the only place in town where she meets people every week.",
    "",
    "Some councillors argue that fewer people borrow books than ten years ago. That is true, but visits to the library have risen, because people come for the classes, the computers and the quiet space. The council could ask local businesses to sponsor the library instead of cutting its hours.",
    "",
    "Please vote against the plan and keep Quarry Lane library open six days a week.",
    "",
    "Yours faithfully,",
    "Priya Shah",
  ].join("\n");
  const OFF_TOPIC = [
    "Dear Principal Okafor,",
    "",
    "I am writing on behalf of the student council of Eastbrook Middle School to ask you to reconsider the new rule that bans phones at lunch. I understand why phones are not allowed in lessons, but I believe that allowing students to use them at lunch would be fair.",
    "",
    "First, lunch is our only real break in a seven-hour day. Adults may check their phones during breaks at work, and students should be trusted in the same way. Many of us read messages from our parents about lifts and appointments at lunch.",
    "",
    "Second, the ban has not made lunch more sociable, which was the reason given for it. Since the rule began, many students simply sit in silence or leave the hall early. A phone-free games table for students who want to talk would be a better solution.",
    "",
    "Some teachers worry that phones will lead to bullying or filming. This is a real problem, but the school already has rules against recording people without permission, and those rules could be enforced at lunch.",
    "",
    "I would be glad to meet you, or to run a student council survey, so that we can find a solution together.",
    "",
    "Respectfully,",
    "Sofia Lind",
  ].join("\n");

  test("a well-written letter about something else, to the task's town and a council of its own, is not passed", async () => {
    // It shares "Eastbrook", "council" and "consider" with the task, not one word of its subject (the library, its
    // hours): counted on the task's side only, it passed at 80, as high as the letter that answers the task.
    const guide = await textDoc("ref_letter", "guide.md", LETTER_GUIDE);
    const answered = await run([guide], [await textDoc("doc_on", "letter.txt", ON_TOPIC)]);
    const other = await run([guide], [await textDoc("doc_off", "letter.txt", OFF_TOPIC)]);
    expect(answered.verdict).toBe("pass");
    expect(other.verdict).not.toBe("pass");
    // The guide's one scale is of the whole letter ("(holistic)"), though its title names a craft ("persuasive"):
    // judged on the argument alone, and by its levels' words, the letter about phones scored 100, the answer 80.
    expect(other.score).toBeLessThan(answered.score);
    expect(other.summary).toContain("a person should check that it answers the task");
  });

  test("an argument on another question earns little for its thesis and analysis; its writing keeps its credit", async () => {
    // A well-argued essay on Victorian railways, against a question on the Treaty of Versailles, took 15 of 20 for its
    // thesis and 18 of 25 for its analysis: criteria named after the argument, with nothing but their names to go on,
    // were judged on its signals alone, whatever it argued about.
    const rubric = [
      "# Grade 11 history essay",
      "",
      "## Essay question",
      "",
      "To what extent was the harvest failure of 1845 responsible for the collapse of the Corn Laws in Britain? Weigh the famine in Ireland against the Anti-Corn Law League, free-trade economics and Peel's own convictions.",
      "",
      "Passing mark: 60 points. Essays that do not answer the question cannot earn points for Thesis or Analysis.",
      "",
      "| Criterion | Points |",
      "|---|---|",
      "| Thesis | 20 |",
      "| Analysis | 25 |",
      "| Conventions | 10 |",
      "| **Total** | **55** |",
    ].join("\n");
    const onQuestion = [
      "The harvest failure of 1845 was, to a large extent, responsible for the repeal of the Corn Laws in 1846, but it worked through Peel's convictions rather than alone. The famine turned an argument that free traders had been winning slowly into an emergency that no government could ignore.",
      "",
      "Above all, the famine in Ireland gave Peel the crisis he needed. When blight destroyed the potato crop in the autumn of 1845, about a third of the Irish harvest was lost, and by 1846 hundreds of thousands faced starvation. Keeping duties on imported corn meant keeping food from the starving, and Peel told the cabinet in December 1845 that the ports had to be opened. Because of this, the timing of repeal follows the harvest almost month by month.",
      "",
      "However, some historians argue that the Anti-Corn Law League had already won the argument. Cobden and Bright had spent seven years holding meetings, printing pamphlets and winning by-elections, and free-trade economics had convinced many manufacturers and even Peel himself by 1842, when he cut duties in his first budget. This is true to some extent, but the League alone never had a majority in the Commons, which is why it could not force repeal before 1845.",
      "",
      "Peel's own convictions were therefore the link between the two. He believed that cheap bread would keep order and that free trade would make Britain richer, yet he needed the famine to persuade his party. In the end he split the Conservatives: 231 of them voted against him in May 1846, and repeal passed only with Whig and Radical votes.",
      "",
      "In conclusion, the harvest failure decided when the Corn Laws fell, while free-trade economics, the League and Peel's beliefs decided that they would fall at all. The famine was the main cause of the timing of repeal, but not of repeal itself.",
    ].join("\n");
    const otherQuestion = [
      "The railways were, to a large extent, the main reason that Victorian towns grew so quickly between 1840 and 1870, but they worked together with the factories rather than alone. Trains turned small market towns into places where thousands of workers could live, travel and trade.",
      "",
      "Above all, cheap fares changed where people could live. After the Railway Regulation Act of 1844, every company had to run at least one train a day at a penny a mile, and workers could travel to jobs several miles from their homes. Because of this, new streets of terraced houses spread along the lines around Manchester, Leeds and Birmingham, and towns such as Crewe and Swindon were built almost entirely by railway companies.",
      "",
      "However, some historians argue that the factories and not the railways drew people into the towns. Mills and foundries offered steady wages, and families left the countryside because farm work was scarce and badly paid. This is true to some extent, but the factories themselves depended on trains to bring coal and cotton and to carry their goods to the ports, which is why the fastest-growing towns were on the main lines.",
      "",
      "Local councils were therefore shaped by the railways too. Stations needed roads, gas lighting and police, and towns that won a station grew richer than those that were bypassed. By 1871 more than half of the population of England lived in towns, a change that would have been impossible without rail transport.",
      "",
      "In conclusion, the railways shaped where and how fast the towns grew, even if the factories explain why people moved at all. They were the main cause of the speed of urban growth, but not of the growth itself.",
    ].join("\n");
    const guide = await textDoc("ref_history", "rubric.md", rubric);
    const answered = await run([guide], [await textDoc("doc_on", "essay.txt", onQuestion)]);
    const other = await run([guide], [await textDoc("doc_off", "essay.txt", otherQuestion)]);
    const points = (e: Evaluation, title: string) => e.criteria.find((c) => c.title === title)?.score ?? -1;
    expect(points(other, "Thesis")).toBeLessThan(points(answered, "Thesis"));
    expect(points(other, "Analysis")).toBeLessThan(points(answered, "Analysis"));
    expect(points(other, "Conventions")).toBe(points(answered, "Conventions"));
    expect(other.verdict).not.toBe("pass");
    // "To a large extent", "above all", "the main cause": a historian's position, stated without "I".
    expect(answered.criteria.find((c) => c.title === "Thesis")?.rationale).not.toContain("0 position markers");
  });

  test("a task's word count and page format are not its topic; its years are", () => {
    // "250-400 words" made "250" and "400" topic words no letter uses, and "MLA", "length" and "pages" ones no essay does.
    expect(topicTermsOf("Write about the library (250-400 words, two pages, MLA format, any length).")).toEqual(["librari"]);
    expect(topicTermsOf("Explain the causes of the 1929 crash.")).toEqual(["caus", "1929", "crash"]);
  });
});

describe("what is not the writing", () => {
  test("a name, teacher, class, date and title above the essay change nothing: they are not the writing", async () => {
    // Before, the heading's date counted as figures (evidence), its capitals as care (conventions) and its title's words
    // as the subject: the off-topic beach essay rose from 12 to 26, a plain letter from level 2 to 3.
    const heading = "Maya Torres\nMs. Alvarez\nEnglish 8, Period 3\n14 October 2026\n\nTrees for Our City\n\n";
    const rubricDoc = await textDoc("ref_1", "rubric.md", RUBRIC_MD);
    const guide = await textDoc("ref_holistic", "guide.md", HOLISTIC_GUIDE);
    for (const [reference, text] of [
      [rubricDoc, WEAK_ESSAY],
      [rubricDoc, STRONG_ESSAY],
      [guide, PLAIN_LETTER],
    ] as const) {
      const bare = await run([reference], [await textDoc("doc_1", "essay.txt", text)]);
      const headed = await run([reference], [await textDoc("doc_1", "essay.txt", heading + text)]);
      expect([headed.score, headed.criteria.map((c) => c.score)]).toEqual([bare.score, bare.criteria.map((c) => c.score)]);
      // Nor is the heading quoted as evidence.
      for (const c of headed.criteria) for (const e of c.evidence) expect(heading).not.toContain(e.quote);
    }
  });

  test("a teacher's comment on a DOCX and its page header change nothing: someone else's words, a name and a date", async () => {
    // The comment names the task's subject and gives figures: counted as the student's, it lifted the beach essay from
    // 12 to 44, and the header's line cost a strong essay its concluding paragraph.
    const rubricDoc = await textDoc("ref_1", "rubric.md", RUBRIC_MD);
    const note =
      "Urban trees: cite the 2022 study from the US Environmental Protection Agency on stormwater runoff, shade and air quality, with figures (20 percent, 3 degrees).";
    for (const text of [WEAK_ESSAY, STRONG_ESSAY]) {
      const paras = text.split(/\n\s*\n/).map((p) => p.replace(/\s*\n\s*/g, " ").trim());
      const docx = async (annotated: boolean) => {
        const first = annotated
          ? new Paragraph({
              children: [
                new CommentRangeStart(0),
                new TextRun(paras[0]),
                new CommentRangeEnd(0),
                new TextRun({ children: [new CommentReference(0)] }),
              ],
            })
          : new Paragraph({ text: paras[0] });
        const document = new Document({
          ...(annotated ? { comments: { children: [{ id: 0, author: "Ms. Alvarez", children: [new Paragraph({ text: note })] }] } } : {}),
          sections: [
            {
              ...(annotated
                ? { headers: { default: new Header({ children: [new Paragraph({ text: "Maya Torres, English 8, Period 3, 14 October 2026" })] }) } }
                : {}),
              children: [first, ...paras.slice(1).map((p) => new Paragraph({ text: p }))],
            },
          ],
        });
        const content = await extract(new Uint8Array(await Packer.toBuffer(document)), { filename: "essay.docx" });
        return { id: "doc_1", name: "essay.docx", content };
      };
      const annotated = await docx(true);
      expect(annotated.content.sections.map((s) => s.location.section ?? "body")).toEqual(["body", "comments", "header"]);
      const [plain, marked] = await Promise.all([run([rubricDoc], [await docx(false)]), run([rubricDoc], [annotated])]);
      expect([marked.score, marked.criteria.map((c) => c.score)]).toEqual([plain.score, plain.criteria.map((c) => c.score)]);
      for (const c of marked.criteria) for (const e of c.evidence) expect(note).not.toContain(e.quote);
    }
  });
});

describe("each trait judged on its own", () => {
  test("a well-told story about another subject loses on Ideas only: how it is organised and written does not depend on the task", async () => {
    const story = await textDoc("doc_story", "story.txt", KIND_STORY);
    const other = await textDoc(
      "ref_other",
      "rubric.md",
      LEVEL_RUBRIC.replace("# Narrative writing: a story about kindness", "# Report writing: volcanoes")
        .replace(/Write a story about a time[^\n]*/, "Write a report on how volcanoes form along tectonic plate boundaries and why eruptions differ.")
        .replaceAll("a story about kindness", "a report on volcanoes")
        .replace("focused on kindness", "focused on volcanoes"),
    );
    const onTask = await run([rubric], [story]);
    const offTask = await run([other], [story]);
    const level = (e: Evaluation, title: string) => e.criteria.find((c) => c.title === title)?.score;
    expect(level(offTask, "Ideas")).toBeLessThan(level(onTask, "Ideas") as number);
    expect(level(offTask, "Organization")).toBe(level(onTask, "Organization"));
    expect(level(offTask, "Conventions")).toBe(level(onTask, "Conventions"));
    expect(offTask.score).toBeLessThan(onTask.score);
    // Well written but about something else: not passed on its writing alone; a person is asked to look.
    expect(onTask.verdict).toBe("pass");
    expect(offTask.verdict).toBe("needs_review");
    expect(offTask.summary).toContain("a person should check that it answers the task");
  });

  test("a persuasive essay on another subject never passes a story rubric, however well it is written", async () => {
    const trees = await run([rubric], [await textDoc("doc_trees", "trees.txt", STRONG_ESSAY)]);
    expect(trees.verdict).not.toBe("pass");
    const ideas = trees.criteria.find((c) => c.title === "Ideas") as Evaluation["criteria"][number];
    expect(ideas.score).toBeLessThanOrEqual(1);
  });

  test("a rubric that asks for a story judges Ideas on whether the work tells one: an explanation of kindness scores lower", async () => {
    // About as long as the story, on the same subject, in the same words, but explaining instead of telling.
    const explanation = `Kindness is one of the most important things a neighbour can show. A kind person notices when someone needs help and does something about it, even when it takes time.

Kindness matters because people who live alone, like many older neighbours, can find simple tasks hard. If a path is not cleared or a newspaper piles up, a kind neighbour can help. Helping does not have to be a grand gesture: it can be carrying groceries, fixing a gate latch or asking whether someone needs anything from the shop.

Kindness also goes both ways. When we help a neighbour, we often learn from them, and the street becomes a friendlier place. That is why schools should teach children that kindness is noticing someone who needs help and doing something about it, again and again.

In conclusion, kindness is not about big actions. It is about small actions that people repeat every day, and anyone can do them. A neighbourhood where people are kind is a better place to live for everyone who lives there, young or old.`;
    const story = await run([rubric], [await textDoc("doc_story", "story.txt", KIND_STORY)]);
    const essay = await run([rubric], [await textDoc("doc_essay", "essay.txt", explanation)]);
    const ideas = (e: Evaluation) => e.criteria.find((c) => c.title === "Ideas") as Evaluation["criteria"][number];
    expect(ideas(essay).score).toBeLessThan(ideas(story).score);
    expect(ideas(story).rationale).toMatch(/telling a story: \d+% of verbs in the past/);
  });

  test("punctuation inside sentences counts for conventions; a varied vocabulary for language", async () => {
    const signals = async (text: string) => {
      const doc = await textDoc("doc_s", "s.txt", text);
      return writingSignals([doc.content.text], passagesOf(doc), null);
    };
    const story = await signals(KIND_STORY);
    expect((await signals(KIND_STORY.replaceAll(",", ""))).facets.mechanics).toBeLessThan(story.facets.mechanics);
    // About the same length, from a tenth of the vocabulary.
    const words = KIND_STORY.split(/\s+/).filter(Boolean);
    const repetitive = await signals(words.map((_, i) => words[i % Math.ceil(words.length / 10)]).join(" "));
    expect(Math.abs(repetitive.words - story.words)).toBeLessThan(story.words / 20);
    expect(repetitive.facets.language).toBeLessThan(story.facets.language);
  });

  test("an essay's announced claim is a position; its announced subject and a story's future are not", async () => {
    // "In this essay I will talk about what happens" counted twice ("this essay", "I will"): a retelling of a sonnet
    // took full marks for its thesis, above the analysis that argued one.
    const stance = async (text: string) => {
      const doc = await textDoc("doc_s", "s.txt", text);
      return writingSignals([doc.content.text], passagesOf(doc), null).notes.argument;
    };
    expect(await stance("In this essay I will talk about what happens in the poem. I will describe each part.")).toMatch(/^0 position/);
    expect(await stance("I will never forget that summer. I will always remember the lake.")).toMatch(/^0 position/);
    expect(await stance("In this essay I will argue that the poem is about love, not age.")).toMatch(/^1 position/);
  });

  test("a story's dialogue and sensory detail are judged where a story's rubric asks for them; its focus is a story's", async () => {
    const rubric = [
      "Personal narrative checklist. Write a true story about one time you tried something new. Your story needs a",
      "beginning, a middle and an end.",
      "",
      "1. FOCUS - 3 pts: My story is about ONE moment.",
      "2. DIALOGUE - 2 pts: At least one line of talking, with quotation marks.",
      "3. SENSORY DETAILS - 2 pts: Details of what I saw, heard, smelled, tasted or touched.",
    ].join("\n");
    const told = [
      '"Next!" yelled the lifeguard. I looked up at the high dive. It was as tall as a building.',
      "",
      "First I climbed the ladder. The metal rungs were hot and burned my toes. I could smell the chlorine and hear kids splashing below.",
      "",
      '"You can climb back down," my brother called. Then I stepped off. The water was so cold it felt like tiny pinches.',
      "",
      '"I didn\'t think you would jump," he said. I learned that being scared and brave can happen at the same time.',
    ].join("\n");
    const flat = [
      "One day I went to the pool and I went on the high dive for the first time. It was fun. I was scared but I did it.",
      "",
      "Then I went home and I had dinner. It was a good day and I want to go again. The end.",
    ].join("\n");
    const ref = await textDoc("ref_story", "checklist.txt", rubric);
    const scores = async (text: string) => {
      const doc = await textDoc("doc_story", "story.txt", text);
      const e = evaluateLocally({
        criteria: findCriteria([ref.content], null).criteria,
        inputs: [doc],
        prompt: null,
        referenceTexts: [ref.content.text],
      });
      return Object.fromEntries(e.criteria.map((c) => [c.title, c.score]));
    };
    const [good, thin] = [await scores(told), await scores(flat)];
    // (Before: FOCUS was judged by an argument's position markers, 0 of 3 for any story; and DIALOGUE and SENSORY
    // DETAILS only by their rubric's words, which a story does not use.)
    expect(good.FOCUS).toBeGreaterThanOrEqual(1.5);
    expect(good.DIALOGUE).toBeGreaterThan(thin.DIALOGUE);
    expect(good["SENSORY DETAILS"]).toBeGreaterThan(thin["SENSORY DETAILS"]);
    expect(thin.DIALOGUE).toBe(0);
  });

  test("an objection named and answered is an opposing view", async () => {
    // "The most serious objection is cost … These concerns are real, but …": the exemplary argument of a held-out hunt
    // counted 0 opposing views and took 0 of 3 for its rebuttal.
    const counter = async (text: string) => {
      const doc = await textDoc("doc_c", "c.txt", text);
      return writingSignals([doc.content.text], passagesOf(doc), null).notes.counter;
    };
    expect(
      await counter("The most serious objection is cost. Coaches also worry that practices end late. These concerns are real, but they can be met."),
    ).toMatch(/^[3-9] markers/);
    expect(await counter("A later start helps students sleep. It also makes them safer on the roads.")).toMatch(/^0 markers/);
  });

  test("a report's named 'Conclusion' section concludes, and its hypothesis is its position: a strong lab report passes", async () => {
    // A lab report states no "I believe" and ends on its sources of error: its conclusion and hypothesis went unseen
    // (0 position markers, "no clear concluding paragraph"), and the strongest report of a held-out hunt failed at 63.
    const rubric = [
      "# Lab report rubric",
      "",
      "## Hypothesis and purpose",
      "- 4: Purpose clearly stated; a testable hypothesis with a scientific reason.",
      "- 3: Purpose stated; a testable hypothesis.",
      "- 2: A vague purpose or hypothesis.",
      "- 1: Missing.",
      "",
      "## Analysis and conclusion",
      "- 4: States whether the hypothesis was supported, using the data, and explains the result.",
      "- 3: States whether the hypothesis was supported, with some reference to the data.",
      "- 2: A conclusion that restates the results.",
      "- 1: No conclusion.",
    ].join("\n");
    const report = (conclusionHeading: string) =>
      [
        "Purpose",
        "The purpose of this investigation was to find out how the length of a pendulum affects the time of one swing.",
        "",
        "Hypothesis",
        "If the pendulum is made longer, then each swing will take more time, because the bob travels a longer arc at a similar speed.",
        "",
        "Results",
        "Lengths of 20, 40, 60 and 80 cm gave mean swing times of 0.9, 1.3, 1.6 and 1.8 seconds over three trials each.",
        "",
        conclusionHeading,
        "Our hypothesis was supported: the swing time rose with every increase in length, although not in proportion to it.",
        "",
        "Sources of error",
        "Starting the stopwatch by hand added about a tenth of a second to some trials; a light gate would time them better.",
      ].join("\n");
    const named = await run([await textDoc("ref_1", "rubric.md", rubric)], [await textDoc("doc_1", "report.txt", report("Conclusion"))]);
    const unnamed = await run([await textDoc("ref_1", "rubric.md", rubric)], [await textDoc("doc_1", "report.txt", report("Findings"))]);
    const level = (e: Evaluation, title: string) => e.criteria.find((c) => c.title.startsWith(title))?.score ?? 0;
    expect(named.criteria[1].rationale).toContain("a concluding paragraph");
    expect(level(named, "Analysis")).toBeGreaterThan(level(unnamed, "Analysis"));
    expect(named.criteria[0].rationale).not.toContain("0 position markers");
    expect(named.verdict).toBe("pass");
  });
});

describe("the pass line", () => {
  test("a pass mark the workflow's prompt states wins over the rubric's levels and the server default", async () => {
    const { criteria } = findCriteria([rubric.content], null);
    expect(passLevel(criteria, "Grade the story. The pass mark is 8/9.", [LEVEL_RUBRIC], 60)).toEqual({ share: 8 / 9, source: "prompt" });
    expect(passLevel(criteria, null, ["Students pass at 75%."], 60)).toEqual({ share: 0.75, source: "rubric" });
    expect(passLevel(criteria, null, [LEVEL_RUBRIC], 60)).toEqual({ share: 2 / 3, source: "levels" });
    expect(passLevel([], null, [], 55)).toEqual({ share: 0.55, source: "setting" });
  });

  test("stated pass marks: percentages, 'N/M', 'out of', and a bare number on the rubric's own scale", () => {
    expect(statedPassShare("Passing score: 60%", 100)).toBeCloseTo(0.6);
    expect(statedPassShare("pass at 16 out of 24", 9)).toBeCloseTo(16 / 24);
    expect(statedPassShare("The pass mark is 6", 9)).toBeCloseTo(6 / 9);
    expect(statedPassShare("Read the passage twice.", 9)).toBeNull();
    expect(statedPassShare("A pass is 60% of the marks; pass at least 60%.", 9)).toBeCloseTo(0.6);
    // A condition on what the work scores, in bold as rubrics write it. (Before: no pass mark, so the server's 60 %.)
    expect(statedPassShare("An essay **passes** if it scores **at least 32 of 80 (40 %)** overall.", 80)).toBeCloseTo(0.4);
    expect(statedPassShare("The report passes when it gets 18/30 or more.", 30)).toBeCloseTo(0.6);
    // A level named the pass, then the condition. (Before: no pass mark, the server's 60 %.)
    expect(statedPassShare("An answer is at the Grade 4 (standard pass) level if it scores 7 out of 15 or more.", 15)).toBeCloseTo(7 / 15);
    // "With N marks or more". (Before: no pass mark, the server's 60 %.)
    expect(statedPassShare("**You pass this practice question with 10 marks or more out of 20.**", 20)).toBeCloseTo(0.5);
    // ("It passes if it scores at least 3 on every criterion" states no overall scale: not read as one.)
    expect(statedPassShare("It passes if it scores at least 3 on every criterion.", 20)).toBeNull();
    // A band table's "expected standard" row: the pass starts at its band. (Before: no pass mark, the server's 60 %.)
    const bands =
      "| Stars for 1–6 | Judgement |\n|---|---|\n| 0–11 | Working towards the expected standard |\n| 12–15 | Working at the expected standard (EXS) |";
    expect(statedPassShare(bands, 18)).toBeCloseTo(12 / 18);
    // On the rubric's own scale, out of the criteria the pass is judged on: an optional "Challenge" adds on top.
    const star = (title: string, optional = false) => ({
      id: title,
      title,
      description: "",
      maxScore: 3,
      hasPoints: true,
      ...(optional ? { optional } : {}),
    });
    expect(passLevel([star("Title"), star("Steps"), star("Challenge", true)], null, ["The pass mark is 4."], 60).share).toBeCloseTo(4 / 6);
    // Criteria marked out of 100 and weighed 60/40: the whole is out of the weights' 100. (Before: 40 of 200, a 20 % line.)
    const weighed = (title: string, weight: number) => ({ id: title, title, description: "", maxScore: 100, weight, hasPoints: true });
    expect(passLevel([weighed("Analysis", 60), weighed("Writing", 40)], null, ["Pass mark 40 (Level 4)."], 60).share).toBeCloseTo(0.4);
  });

  test("an article the students read, uploaded beside the rubric, adds no criteria: its sections and lists are material", async () => {
    // Its headings and numbered list became criteria out of 10 each beside the rubric's four out of 3.
    const article = await textDoc(
      "ref_article",
      "article.md",
      "# The Mooring Mast\n\n## A mast for airships\n\nThe builders planned a mast so that airships could dock on the building.\n\n" +
        "## Obstacles\n\n1. Winds at the top were violent.\n2. The law forbade airships over the city.\n3. The ships used flammable hydrogen.\n\n" +
        "## The end of the plan\n\nAfter a few tries the idea was dropped.\n",
    );
    const titles = (refs: EngineDocument[]) =>
      findCriteria(
        refs.map((r) => r.content),
        null,
      ).criteria.map((c) => c.title);
    expect(titles([rubric, article])).toEqual(titles([rubric]));
    expect(titles([article, rubric])).toEqual(titles([rubric]));
    // Alone, with nothing that scores beside it, a document's sections are what there is to check.
    expect(titles([article])).toEqual(["A mast for airships", "Obstacles", "The end of the plan"]);
  });

  test("a story the students read, uploaded beside the rubric, states no pass mark: 'he passed 3 houses' is not one", async () => {
    // A reading response's source text is a reference too. Its "passed 3" set the pass line at 3 of 3, so every
    // answer below full marks failed.
    for (const phrase of [
      "He passed 3 houses before the hill.",
      "The bus passes at 5 every morning.",
      "Two riders passed at 40 miles an hour.",
      "The pass is 3 miles long.",
    ]) {
      expect(statedPassShare(phrase, 3)).toBeNull();
    }
    const story = await textDoc(
      "ref_story",
      "story.txt",
      "The Long Ride\n\nThe road ran through the desert. He passed 3 houses before the hill, and then no more.",
    );
    const out = await run([rubric, story], [await textDoc("doc_story", "story.txt", KIND_STORY)]);
    const alone = await run([rubric], [await textDoc("doc_story", "story.txt", KIND_STORY)]);
    expect(out.summary).toContain("the level the rubric calls adequate");
    expect(out.verdict).toBe(alone.verdict);
  });

  test("the level a rubric calls adequate is its pass level; 'not adequate' is not", () => {
    const crit = (descriptors: string[]) => ({
      id: "c",
      title: "C",
      description: "",
      maxScore: descriptors.length - 1,
      hasPoints: true,
      levels: descriptors.map((descriptor, value) => ({ value, descriptor })),
    });
    expect(levelPassShare([crit(["Missing", "Not adequate", "Proficient work", "Exemplary work"])])).toBeCloseTo(2 / 3);
    expect(levelPassShare([crit(["Poor", "Fair", "Good"])])).toBeNull();
    // ASAP set 2's writing guide names adequacy at its level 2 only to say the work falls short of it.
    const writing = [
      "No response.",
      "Fails to accomplish the task; very brief or rambling.",
      "Only partially accomplishes the task; may be too brief to provide sufficient development of the topic or evidence of adequate organization.",
      "Minimally accomplishes the task; development and organization are weak.",
      "Accomplishes the task: some supporting details, a generally clear organization, and adequate word choice.",
      "Fully accomplishes the task with a solid performance.",
      "Fully accomplishes the task in a thorough and insightful manner.",
    ];
    expect(levelPassShare([crit(writing)])).toBeCloseTo(4 / 6);
    expect(levelPassShare([crit(["None", "Lacks adequate support", "Support is adequate", "Strong support"])])).toBeCloseTo(2 / 3);
    expect(levelPassShare([crit(["None", "Less than adequate", "Adequate", "Strong"])])).toBeCloseTo(2 / 3);
  });

  test("level columns named only in words are a scale as long as the columns, passing at the one named 'Meets'", async () => {
    const grid = (levels: string[], rows: string[][]) => [["Criterion", ...levels], ...rows].map((r) => r.join(",")).join("\n");
    const descending = grid(
      ["Exceeds", "Meets", "Approaching", "Below"],
      [
        ["Thesis", "A sharp arguable claim", "A clear claim", "A vague claim", "No claim"],
        ["Evidence", "Relevant facts and sources throughout", "Mostly supported", "Some support", "None"],
      ],
    );
    const ref = await textDoc("ref_grid", "rubric.csv", descending);
    const { criteria } = findCriteria([ref.content], null);
    expect(criteria.map((c) => [c.title, c.maxScore, c.levels?.map((l) => l.value)])).toEqual([
      ["Thesis", 4, [1, 2, 3, 4]],
      ["Evidence", 4, [1, 2, 3, 4]],
    ]);
    expect(criteria[0].description).toBe("A sharp arguable claim");
    // A strong essay passes at the "Meets" line (3 of 4); the level names are not a topic it must mention.
    const strong = await run([ref], [await textDoc("doc_strong", "essay.txt", STRONG_ESSAY)]);
    expect(strong.summary).toContain("passes at 75, the level the rubric calls adequate");
    expect(strong.verdict).toBe("pass");
    // The same scale written worst-first still puts its best column at the top.
    const ascending = grid(
      ["Beginning", "Developing", "Proficient", "Exemplary"],
      [["Thesis", "No claim", "A vague claim", "A clear claim", "A sharp claim"]],
    );
    const up = findCriteria([(await textDoc("ref_up", "rubric.csv", ascending)).content], null).criteria[0];
    expect([up.maxScore, up.description, up.levels?.at(-1)?.descriptor]).toEqual([4, "A sharp claim", "Exemplary: A sharp claim"]);
  });

  test("a CV is not held down for being short: length counts in essays and where a length is asked for, not in HR screening", async () => {
    const jd = await textDoc(
      "ref_jd",
      "job.txt",
      "Senior Data Engineer\n\nRequirements\n- At least 5 years of experience building data pipelines in Python.\n" +
        "- Strong SQL and experience with PostgreSQL or another relational database.\n- Experience with Apache Airflow or a similar scheduler.\n" +
        "- Experience with cloud platforms (AWS or GCP).\n",
    );
    const cv = await textDoc(
      "doc_cv",
      "cv.txt",
      "Jane Doe, Data Engineer\n\nSenior Data Engineer, Acme Retail (2018–2025): built data pipelines in Python processing 2 TB a day; " +
        "designed PostgreSQL schemas and tuned SQL; ran 120 Apache Airflow DAGs on AWS.\nData Engineer, Beta Bank (2015–2018): Python ETL, SQL reporting, Airflow.\n" +
        "Skills: Python, SQL, PostgreSQL, Airflow, AWS, GCP.",
    );
    const screened = await run([jd], [cv], null, "hr");
    expect(screened.verdict).toBe("pass");
    expect(screened.summary).not.toContain("short for the task");
    // The same 60-word document graded as an essay is short for one.
    const asEssay = await run([jd], [cv], null, "education");
    expect(asEssay.summary).toContain("short for the task");
    expect(asEssay.score).toBeLessThan(screened.score);
    // A length the prompt names counts in any product.
    const asked = await run([jd], [cv], "Screen the CV (at least 400 words expected).", "hr");
    expect(asked.summary).toContain("short for the task");
    // A CV's first lines are its content, not a student's heading: skills listed one a line at the top count.
    const listed = await textDoc(
      "doc_cv",
      "cv.txt",
      "Jane Doe\njane@example.com\nSkills\nPython\nSQL and PostgreSQL\nApache Airflow\nAWS and GCP\n\n" +
        "Senior Data Engineer at a retailer from 2018 to 2025, where I built the pipelines that feed the company's reports, " +
        "designed the schemas of its warehouse and looked after the scheduler that runs the nightly jobs. Before that I was a " +
        "data engineer at a bank for three years, writing the jobs that load and check its daily figures and the reports built on them.",
    );
    const topListed = await run([jd], [listed], null, "hr");
    expect(topListed.criteria.flatMap((c) => c.evidence.map((e) => e.quote)).join(" ")).toMatch(/Python|Airflow|PostgreSQL/);
    expect(topListed.verdict).toBe("pass");
  });

  test("a response is not an essay: a task asking for one expects fewer words when it names no length", async () => {
    const rubricFor = (task: string) =>
      textDoc(
        "ref_response",
        "rubric.md",
        `# Reading response\n\n## Prompt\n\n${task}\n\n## Score points\n\n- 3: Explains the effect clearly, with relevant examples.\n- 2: Explains it in part, with some examples.\n- 1: A minimal explanation.\n- 0: Irrelevant.\n`,
      );
    const answer = await textDoc(
      "doc_answer",
      "answer.txt",
      "The setting makes the cyclist's ride harder and harder. First, the road is long and empty, so he has no one to ask for help when he " +
        "gets lost. Then the sun beats down on him, and his water bottle is almost empty by noon, which makes him weak and dizzy. " +
        "The old town he reaches has nothing but a broken pump, so his hope turns into fear. For example, he says the water tasted like " +
        "battery acid. Finally, the hills and the heat make every mile feel longer. The setting is like an enemy that tests how much he can take, " +
        "and in the end he learns to be better prepared.",
    );
    const asResponse = await run([await rubricFor("Write a response that explains how the features of the setting affect the cyclist.")], [answer]);
    const asEssay = await run([await rubricFor("Write an essay that explains how the features of the setting affect the cyclist.")], [answer]);
    expect(asEssay.summary).toContain("short for the task");
    expect(asResponse.summary).not.toContain("short for the task");
    expect(asResponse.score).toBeGreaterThanOrEqual(asEssay.score);
  });

  test("a contract against a points checklist (legal): complete terms pass at the checklist's own 70 %, thin ones fail", async () => {
    const file = "contract-checklist.docx";
    const content = await extract(await Bun.file(new URL(`../fixtures/rubrics/${file}`, import.meta.url)).bytes(), { filename: file });
    const checklist: EngineDocument = { id: "ref_checklist", name: file, content };
    const full = await textDoc(
      "doc_full",
      "contract.txt",
      "SERVICES AGREEMENT\n\n1. Term and termination. Either party may terminate this Agreement by giving sixty (60) days' written notice.\n\n" +
        "2. Fees and payment. The Client shall pay within thirty (30) days of the invoice date; late payments bear interest at 4% a year.\n\n" +
        "3. Confidentiality. Confidential Information means non-public business information; each party keeps it secret for five (5) years.\n\n" +
        "4. Limitation of liability. Each party's total liability is limited to the fees paid in the twelve (12) months before the claim.\n\n" +
        "5. Governing law. This Agreement is governed by the laws of England and Wales; the courts of London have jurisdiction.",
    );
    const thin = await textDoc(
      "doc_thin",
      "contract.txt",
      "SERVICES AGREEMENT\n\n1. Services. The Supplier will provide consulting services as requested.\n\n2. Fees. The Client will pay the fees.",
    );
    const good = await run([checklist], [full], "Review the contract against the checklist.", "legal");
    expect(good.criteria.map((c) => [c.title, c.max_score])).toEqual([
      ["Termination", 20],
      ["Liability cap", 20],
      ["Confidentiality", 15],
      ["Governing law", 10],
      ["Payment terms", 15],
    ]);
    expect(good.summary).toContain("passes at 70, the pass mark the rubric states");
    expect(good.verdict).toBe("pass");
    const bad = await run([checklist], [thin], "Review the contract against the checklist.", "legal");
    expect(bad.verdict).toBe("fail");
    expect(bad.score).toBeLessThan(40);
  });

  test("a contract without a required clause is not passed on its other clauses (legal): the clause is named as not found", async () => {
    const checklist = await textDoc(
      "ref_checklist",
      "checklist.md",
      [
        "# NDA review checklist",
        "",
        "- Definition of confidential information (10 points): covers business, technical and financial information.",
        "- Term of confidentiality (10 points): obligations last at least three years.",
        "- Return or destruction (10 points): information is returned or destroyed when the agreement ends.",
        "- Limitation of liability (10 points): liability is capped at the fees paid in the previous twelve months.",
        "- Governing law (10 points): names the governing law and the courts with jurisdiction.",
      ].join("\n"),
    );
    const clauses = [
      "1. Confidential information. Confidential information means all business, technical and financial information disclosed by either party.",
      "2. Term. The obligations in this Agreement last for five years after disclosure.",
      "3. Return or destruction. When this Agreement ends, each party returns or destroys the other party's information.",
      "4. Limitation of liability. Each party's liability is capped at the fees paid in the twelve months before the claim.",
      "5. Governing law. This Agreement is governed by the laws of England and Wales, and the courts of London have jurisdiction.",
    ];
    const contract = (kept: string[]) =>
      textDoc("doc_nda", "nda.txt", `MUTUAL NON-DISCLOSURE AGREEMENT\n\n${kept.join("\n\n")}\n\n6. Fees. Fees are paid monthly.`);
    const prompt = "Review the NDA against the checklist.";
    const complete = await run([checklist], [await contract(clauses)], prompt, "legal");
    expect(complete.verdict).toBe("pass");
    // Without its liability clause: "months", "paid" and "fees" are still there, but "limitation" and "liability" are
    // not. The clause kept 4 of 10 on those words, and the contract passed.
    const withoutCap = await run([checklist], [await contract(clauses.filter((c) => !c.includes("liability")))], prompt, "legal");
    const cap = withoutCap.criteria.find((c) => c.title === "Limitation of liability");
    expect(cap?.score).toBeLessThanOrEqual(2);
    expect(withoutCap.score).toBeGreaterThanOrEqual(60);
    expect(withoutCap.verdict).toBe("needs_review");
    expect(withoutCap.summary).toContain("Not found: Limitation of liability");
    // A contract's "claims" and "data" are what it says, not an essay's argument: no writing signals in its rationales.
    for (const c of complete.criteria) expect(c.rationale).not.toContain("Writing signals");
  });

  test("a clause the checklist marks not required ('Required: No') does not hold a pass back when it is missing (legal)", async () => {
    const checklist = await textDoc(
      "ref_checklist",
      "checklist.md",
      [
        "| Clause | Required | Notes |",
        "|---|---|---|",
        "| Governing law | Yes | Names the governing law and the courts with jurisdiction. |",
        "| Limitation of liability | Yes | Liability capped at the fees paid in the previous twelve months. |",
        "| Non-solicitation | No | Optional. If included, limited to twelve months. |",
      ].join("\n"),
    );
    const nda = await textDoc(
      "doc_nda",
      "nda.txt",
      "MUTUAL NON-DISCLOSURE AGREEMENT\n\n1. Governing law. This Agreement is governed by the laws of England and Wales, and the courts of London have jurisdiction.\n\n2. Limitation of liability. Each party's liability is capped at the fees paid in the twelve months before the claim.",
    );
    const out = await run([checklist], [nda], "Review the NDA.", "legal");
    expect(out.criteria.find((c) => c.title === "Non-solicitation")?.score).toBeLessThanOrEqual(2);
    expect(out.verdict).toBe("pass");
    expect(out.summary).not.toContain("Not found");
  });

  test("a prompt's pass mark above what the work earns fails it; ASSAY_PASS_THRESHOLD applies when nothing is stated", async () => {
    const story = await textDoc("doc_story", "story.txt", KIND_STORY);
    const strict = await run([rubric], [story], "Grade the story. Pass mark: 100%.");
    const plain = await run([rubric], [story], "Grade the story.");
    expect(strict.summary).toContain("the pass mark the workflow's prompt states");
    expect(strict.verdict).toBe(strict.score >= 100 ? "pass" : "fail");
    expect(plain.verdict).toBe("pass");
    const noLevels = await textDoc("ref_plain", "rubric.md", "# Rubric\n\n## Story\nA story about kindness.\n\n## Details\nSpecific details.\n");
    const lenient = await run([noLevels], [story], null, "education", 1);
    expect(lenient.summary).toContain("the server's default threshold");
    expect(lenient.verdict).toBe("pass");
  });
});
