import { documentOf, evaluateLocally } from "./documents";

const [product, ref, ...inputs] = process.argv.slice(2);
const r = await documentOf("ref_1", ref);
for (const f of inputs) {
  const v = (await evaluateLocally(product, r, await documentOf("doc_1", f))) as any;
  console.log("==", f, v.verdict, v.score);
  console.log(v.summary);
  for (const c of v.criteria) console.log(" -", c.title, c.score, "/", c.max_score, "|", c.rationale);
}
