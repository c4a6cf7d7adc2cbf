// Shared material of the engine tests: a rubric, two essays, and documents made through the real extractors.
import path from "node:path";
import type { EngineDocument } from "../../src/engine/types";
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
