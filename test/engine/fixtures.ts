// Shared material of the engine tests: a rubric, two essays, and documents made through the real extractors.
import path from "node:path";
import { type EvaluateInput, evaluate } from "../../src/engine";
import type { EngineDocument, Evaluation } from "../../src/engine/types";
import { extract } from "../../src/extract";

import { CORPUS } from "../helpers";

export { CORPUS };

/** A corpus file as the engine receives it: extracted, with an id and a display name. */
export async function corpusDoc(id: string, file: string): Promise<EngineDocument> {
  const bytes = new Uint8Array(await Bun.file(path.join(CORPUS, file)).arrayBuffer());
  return { id, name: path.basename(file), content: await extract(bytes, { filename: path.basename(file) }) };
}

/** Text written here, extracted as a file of that name would be (Markdown split at headings, and so on). */
export async function textDoc(id: string, filename: string, text: string): Promise<EngineDocument> {
  return { id, name: filename, content: await extract(new TextEncoder().encode(text), { filename }) };
}

/** The standard evaluation of the inputs against the references by the built-in local evaluator, under a product. */
export function run(
  references: EngineDocument[],
  inputs: EngineDocument[],
  prompt: string | null = null,
  productCode = "education",
  passThreshold?: number,
): Promise<Evaluation> {
  const input: EvaluateInput = {
    workspaceId: "ws_test",
    mode: "live",
    workflow: { userPrompt: prompt, outputSchema: null, modelPolicy: "auto", productCode },
    references,
    inputs,
    llm: null,
    contextBudgetChars: 400_000,
    passThreshold,
  };
  return evaluate(input).then((r) => r.value as Evaluation);
}

/** Whitespace-insensitive text, for comparing what a renderer wrote with what an extractor read back. */

export const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

export const RUBRIC_MD = `# Persuasive Essay Rubric: Urban Trees

Students write a persuasive essay of about 400 words arguing whether their city should fund a large urban tree-planting programme.

## Thesis (20 points)
States a clear, arguable position on whether the city should fund tree planting, in the introduction.

## Evidence (30 points)
Supports the position with specific evidence about urban trees: shade and summer heat, air quality, stormwater runoff, property values, costs and maintenance. Uses figures or named sources.

## Counterargument (15 points)
Acknowledges an opposing view, such as the cost of planting and maintenance or damage to pavements, and rebuts it.

## Organisation (15 points)
Logical paragraphs with topic sentences, transitions between ideas and a conclusion that follows from the body.

## Conventions (20 points)
Clear sentences with correct grammar, spelling and punctuation.
`;

export const STRONG_ESSAY = `Our city should fund a large urban tree-planting programme, because trees are one of the cheapest ways to make neighbourhoods cooler, healthier and more valuable.

First, trees cool the streets in summer. Shade from a mature canopy can lower surface temperatures by 10 to 20 degrees, and according to the US Environmental Protection Agency, shaded streets reduce summer heat in the hottest districts. During the heatwave of 2022, hospital admissions rose sharply in the neighbourhoods with the fewest trees.

Second, trees improve air quality and manage stormwater. Leaves trap fine particles, and a single large oak can intercept thousands of litres of rainwater a year, which reduces runoff into our overloaded drains. For example, Philadelphia's “Green City, Clean Waters” plan uses trees to cut stormwater costs.

Third, trees raise property values. Studies in Portland found that a street tree added about 3 percent to the sale price of nearby homes, which also increases the city's tax revenue.

Some people argue that the programme costs too much, and that roots damage pavements. However, the cost of planting and maintenance is small compared with the savings on energy, health and drainage, and choosing the right species for each street avoids most damage to pavements. Therefore the benefits clearly outweigh the costs.

In conclusion, funding tree planting is a practical investment: it cools our streets, cleans our air, reduces runoff and raises property values. The city council should approve the programme this year.
`;

export const WEAK_ESSAY = `i went to the beach last summer with my family it was really fun. we swam in the sea and ate ice cream every day. my brother lost his hat in the wind and we laughed alot. the hotel had a pool too and i liked the pool more then the sea because the sea was cold. next year we want to go again maybe to a different beach. i think holidays are good because you can relax and not do homework.
`;

// A holistic persuasive guide (one 1–6 scale whose levels name position, support, organisation and language) and
// letters of several qualities to it, written for these tests.
export const HOLISTIC_GUIDE = `# Persuasive letter: a later start to the school day

## Task

Write a letter to your school board in which you argue whether the school day should start an hour later. Persuade the board to agree with you.

## Score points

- 6: A fully developed letter that takes a clear, thoughtful position and supports it persuasively with well elaborated reasons and specific details; strong organization with smooth transitions; fluent language with a keen awareness of the audience.
- 5: A developed letter that takes a clear position with reasonably persuasive support and mostly specific details; generally strong organization with transitions; moderately fluent language aware of the audience.
- 4: A somewhat developed letter that takes a position with adequate support and a mix of general and specific details; satisfactory organization with some transitions; adequate awareness of the audience.
- 3: A minimally developed letter that may take a position with inadequate support and general details; some organization with few transitions; some awareness of the audience.
- 2: An under-developed letter with only general, list-like reasons; little organization; awkward or confused language.
- 1: An undeveloped letter with very little support; fragmented language; no awareness of the audience.
`;

/** A few bare lines for a later start: a position and nothing to support it. */
export const THIN_LETTER = `Dear school board, school should start later. Kids are tired in the morning. I dont like getting up early and my friends dont either. It would be better. Please start school later.`;

/** A plain letter: a position, two reasons with a detail each, little else. */
export const PLAIN_LETTER = `Dear members of the school board,

I think the school day should start an hour later. Many students in my class are tired in the first lesson and some of them fall asleep at their desks. If school started later, we would get more sleep and pay more attention.

Another reason is the bus. The first bus comes at half past six, which is very early, and in winter it is still dark when we wait for it. A later start would make the mornings safer.

Some people say a later start would end the day too late for sports. I think the coaches could move practice a little. Please think about starting school later.

Sincerely,
A student`;

/** A developed letter: a clear position, reasons elaborated with specific evidence, a counterargument answered, transitions. */
export const STRONG_LETTER = `Dear members of the school board,

I am writing to urge you to start our school day one hour later, at nine o'clock instead of eight. The evidence on teenage sleep, the safety of students on dark roads, and the results of schools that have already made the change all point the same way.

First, teenagers are not lazy; their bodies keep a later clock. According to the American Academy of Pediatrics, adolescents need between eight and ten hours of sleep, yet a survey at our own school found that 70 percent of students sleep fewer than seven hours on school nights. For example, in my first-period chemistry class, at least five students regularly rest their heads on the desk during the lecture. Consequently, the lesson that should be the most productive of the day is often the least.

Second, a later start would make the journey to school safer. In December the sun rises after half past seven, so students who catch the 6:40 bus wait beside the highway in darkness. Moreover, tired teenage drivers are a real danger: studies of districts that moved their start times report fewer car accidents among young drivers afterwards.

Some members of the board worry that a later start would push sports practice into the evening and disrupt family schedules. However, districts that changed their schedules found workable answers, such as using lit fields or moving some practices to the morning for the few teams that need them. In addition, attendance and grades in those districts rose, which is, after all, the purpose of a school.

In conclusion, starting at nine o'clock would give students the sleep that science says they need, keep them safer on the roads, and improve the learning that happens in every classroom. I respectfully ask the board to vote for a later start next year.

Sincerely,
Maya Torres, Grade 8`;

/** Long, on topic and correct, but one reason said over and over: length and relevance without support or structure. */
export const LONG_PLAIN_LETTER = `Dear school board, I think school should start later in the morning because students are tired. When students are tired they do not learn very well in school. I am tired in the morning and my friends are tired in the morning too. We get up very early to get to school on time and that is why we are tired. If school started later we would not be so tired in the morning. Students need sleep to learn and they do not get enough sleep when school starts early. My brother is also tired in the morning and he goes to the same school. He says that school should start later too. My friends say that school should start later. Everybody I know says that school should start later in the morning. Teachers are tired in the morning too and they would like to start later. When the teachers are tired the lessons are not very good. When the students are tired the lessons are not very good either. Starting later would help the students and it would help the teachers. It would help everybody at the school. I do not like getting up early in the morning and nobody likes getting up early in the morning. The morning is the worst part of the day for students. It is hard to learn in the morning when you are tired. School should start later so that students are not tired and can learn better in school. I hope the school board will start school later in the morning because students are tired and they need more sleep to learn. Starting school later is a good idea for the students and for the teachers and for the whole school. Please start school later in the morning. Thank you for reading my letter about starting school later in the morning.`;
