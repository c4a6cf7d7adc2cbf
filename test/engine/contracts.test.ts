// Contract review with the built-in local evaluator (`legal`): a checklist's required and optional clauses as written,
// a clause the contract never names taken as missing, and the words contracts use for a checklist's clause names.
import { describe, expect, test } from "bun:test";
import { findCriteria } from "../../src/engine/local/criteria";
import { extract } from "../../src/extract";
import { run, textDoc } from "./fixtures";

async function criteriaOf(text: string, filename = "checklist.md") {
  return findCriteria([(await textDoc("ref_1", filename, text)).content], null).criteria;
}

const review = async (checklist: string, contract: string, filename = "checklist.md") =>
  run([await textDoc("ref_1", filename, checklist)], [await textDoc("doc_1", "contract.md", contract)], null, "legal");

const marks = (criteria: { title: string; optional?: boolean }[]) => criteria.map((c) => [c.title, c.optional ?? false]);

describe("a checklist's clauses, required and optional", () => {
  test("'Required clauses' and 'Nice to have' lists: each bold-labelled item is a clause, the nice-to-haves optional", async () => {
    // The two headings were the criteria ("Required clauses" out of 10 on all its words).
    const checklist = [
      "# Mutual NDA review checklist",
      "",
      "Flag any missing clause to the supervising lawyer.",
      "",
      "## Required clauses",
      "",
      "- **Definition of Confidential Information** – broad enough to cover oral and written disclosures.",
      "- **Exclusions** – information already public or independently developed.",
      "- **Governing law** – a named governing law.",
      "",
      "## Nice to have",
      "",
      "- **Non-solicitation** – no poaching of each other's staff for a year.",
    ].join("\n");
    expect(marks(await criteriaOf(checklist))).toEqual([
      ["Definition of Confidential Information", false],
      ["Exclusions", false],
      ["Governing law", false],
      ["Non-solicitation", true],
    ]);
  });

  test("a text file's 'MUST INCLUDE' and 'DESIRABLE' headings in capitals: the desirable items optional", async () => {
    const checklist = [
      "EMPLOYMENT CONTRACT REVIEW CHECKLIST",
      "",
      "MUST INCLUDE",
      "",
      "1. Job title and duties - the job title and main duties.",
      "",
      "2. Notice period - the notice each side must give.",
      "",
      "DESIRABLE",
      "",
      "3. Pension - the auto-enrolment scheme and contribution rates.",
    ].join("\n");
    expect(marks(await criteriaOf(checklist, "checklist.txt"))).toEqual([
      ["Job title and duties", false],
      ["Notice period", false],
      ["Pension", true],
    ]);
  });

  test("'(optional)' after a heading, emphasised or not, marks the clause optional and leaves its name", async () => {
    const checklist = [
      "# Commercial lease checklist",
      "## Rent review",
      "Upward-only or open market review, with dates.",
      "## Insurance",
      "Who insures the building and against which risks.",
      "## Rent deposit *(optional)*",
      "The amount held and when it is returned.",
    ].join("\n");
    expect(marks(await criteriaOf(checklist))).toEqual([
      ["Rent review", false],
      ["Insurance", false],
      ["Rent deposit", true],
    ]);
  });

  test("'Name [M]: …' and 'Name [O]: …' lines are the clauses, mandatory and optional", async () => {
    // Read as no rubric at all before: the generic criteria ("Relevance and coverage") replaced them.
    const checklist = [
      "SUPPLIER AGREEMENT CHECKLIST",
      "Key: [M] = mandatory, [O] = optional.",
      "",
      "Force majeure [M]: Relief for events beyond a party's reasonable control, with a duty to mitigate.",
      "Audit rights [M]: Our right to inspect the supplier's records on reasonable notice.",
      "Step-in rights [O]: Our right to step in where the supplier fails to perform critical services.",
    ].join("\n");
    expect(marks(await criteriaOf(checklist, "checklist.txt"))).toEqual([
      ["Force majeure", false],
      ["Audit rights", false],
      ["Step-in rights", true],
    ]);
  });

  test("bold names closed by a stop, and an 'Optional (…):' label below the numbered list", async () => {
    // The names kept their stop, and the last item was required like the rest.
    const checklist = [
      "# Residential tenancy checklist",
      "",
      "A tenancy agreement must contain each numbered item below.",
      "",
      "1. **Deposit – amount and protection scheme.** The amount and the scheme protecting it.",
      "2. **Rent – amount and due date.** The rent and the day it falls due.",
      "3. **Permitted occupants.** Who may live at the property.",
      "",
      "**Optional (record if present, not required for approval):**",
      "",
      "4. **Pets.** Whether pets are allowed.",
    ].join("\n");
    expect(marks(await criteriaOf(checklist))).toEqual([
      ["Deposit – amount and protection scheme", false],
      ["Rent – amount and due date", false],
      ["Permitted occupants", false],
      ["Pets", true],
    ]);
  });

  test("a 'Mandatory (Y/N)' column: the rows marked N are optional", async () => {
    const checklist = [
      "| Requirement | Mandatory (Y/N) | Guidance |",
      "| --- | --- | --- |",
      "| Security measures | Y | Appropriate technical and organisational measures. |",
      "| Audits and inspections | Y | The controller may audit the processor. |",
      "| International transfer mechanism | N | Only where data leaves the UK. |",
    ].join("\n");
    expect(marks(await criteriaOf(checklist))).toEqual([
      ["Security measures", false],
      ["Audits and inspections", false],
      ["International transfer mechanism", true],
    ]);
  });

  test("a checklist printed by Chromium: plain-line names over their sentences under 'Required terms' are the clauses", async () => {
    // Each wrapped line of the descriptions was a criterion of its own (23 of them).
    const file = "consultancy-checklist-chromium.pdf";
    const content = await extract(await Bun.file(new URL(`../fixtures/rubrics/${file}`, import.meta.url)).bytes(), { filename: file });
    const criteria = findCriteria([content], null).criteria;
    expect(marks(criteria.filter((c) => !c.optional))).toEqual([
      ["Scope of services", false],
      ["Fees and invoicing", false],
      ["Intellectual property assignment", false],
      ["Independent contractor status", false],
      ["Confidentiality", false],
      ["Term and termination", false],
      ["Limitation of liability", false],
    ]);
    expect(criteria.find((c) => c.title === "Scope of services")?.description).toContain("statement of work");
    expect(marks(criteria.filter((c) => c.optional)).map(([t]) => t)).toEqual(expect.arrayContaining(["Non-solicitation", "Insurance"]));
  });

  test("an outline whose lettered points lost their indent: 'Part A – … (required)' and 'Part C – Optional' sections", async () => {
    // Each lettered point was a clause of its own (22 of them from the PDF this mirrors), none optional.
    const checklist = [
      "Facility Agreement Review – Borrower",
      "",
      "Part A – Commercial terms (required)",
      "",
      "1. Facility amount and purpose",
      "a. Maximum principal amount and currency.",
      "b. Permitted purpose of the funds.",
      "2. Prepayment rights",
      "a. The borrower's right to prepay voluntarily, notice period,",
      "minimum amounts.",
      "",
      "Part B – Risk and enforcement terms (required)",
      "",
      "1. Events of default",
      "a. List of events and grace periods.",
      "",
      "Part C – Optional",
      "",
      "1. Financial covenants",
      "a. Leverage, interest cover or minimum net worth tests.",
    ].join("\n");
    const criteria = await criteriaOf(checklist, "checklist.txt");
    expect(marks(criteria)).toEqual([
      ["Facility amount and purpose", false],
      ["Prepayment rights", false],
      ["Events of default", false],
      ["Financial covenants", true],
    ]);
    expect(criteria[0].description).toContain("Permitted purpose of the funds");
  });

  test("lettered items under a heading of their own are items, not points of the numbered list above it", async () => {
    const rubric = ["CONTENT", "1. Thesis", "2. Evidence", "", "STYLE", "a. Clarity", "b. Mechanics"].join("\n");
    expect((await criteriaOf(rubric, "rubric.txt")).map((c) => c.title)).toEqual(["Thesis", "Evidence", "Clarity", "Mechanics"]);
  });

  test("'[M1]' tags under 'MUST CONTAIN (…):', and 'IF APPLICABLE (…):' and 'Recommended' sections optional", async () => {
    const notice = [
      "MUST CONTAIN (all of the following; a notice missing any of these is not acceptable):",
      "",
      "[M1] Retention: how long each category of data is kept.",
      "",
      "[M2] Cookies: what cookies the site uses and how to refuse them.",
      "",
      "IF APPLICABLE (check only where relevant to the site):",
      "",
      "[A1] International transfers: the safeguards used.",
    ].join("\n");
    expect(marks(await criteriaOf(notice, "checklist.txt"))).toEqual([
      ["Retention", false],
      ["Cookies", false],
      ["International transfers", true],
    ]);
    const commission = [
      "Essential",
      "- Usage licence – what we may do with the images.",
      "- Credit – how the photographer is credited.",
      "Recommended",
      "- Expenses – which expenses are chargeable.",
    ].join("\n");
    expect(marks(await criteriaOf(commission, "checklist.txt"))).toEqual([
      ["Usage licence", false],
      ["Credit", false],
      ["Expenses", true],
    ]);
  });

  test("a mark after a bold name, before its description: '**Performance reporting** (optional) — …'", async () => {
    const checklist = [
      "All points are mandatory unless marked (optional).",
      "",
      "1. **Ad disclosure** — every paid post labelled as an ad.",
      "2. **Fee and payment terms** — the fee and when it is paid.",
      "3. **Performance reporting** (optional) — reach and engagement for each post.",
    ].join("\n");
    const criteria = await criteriaOf(checklist);
    expect(marks(criteria)).toEqual([
      ["Ad disclosure", false],
      ["Fee and payment terms", false],
      ["Performance reporting", true],
    ]);
    expect(criteria[2].description).toBe("reach and engagement for each post.");
  });

  test("names run into their descriptions ('Adviser's insurance. The agreement must …'), as a PDF prints bold lead-ins", async () => {
    const checklist = [
      "Must have",
      "",
      "1. The particular claims being settled. The agreement must identify the particular complaints it settles.",
      "",
      "2. Adviser's insurance. The agreement must confirm that the adviser is insured.",
      "",
      "Nice to have",
      "",
      "Agreed reference. The form of reference the employer will give to",
      "prospective employers.",
    ].join("\n");
    expect(marks(await criteriaOf(checklist, "checklist.txt"))).toEqual([
      ["The particular claims being settled", false],
      ["Adviser's insurance", false],
      ["Agreed reference", true],
    ]);
  });

  test("'MAXIMUM CAPACITY (REQUIRED)' over its description: a clause named in capitals, marked required or optional", async () => {
    // The first line of each description was the criterion ("The maximum number of people permitted in the…").
    const checklist = [
      "VENUE HIRE AGREEMENTS - MINIMUM CONTRACT STANDARDS",
      "",
      "MAXIMUM CAPACITY (REQUIRED)",
      "The maximum number of people permitted in the venue or room for the event.",
      "",
      "HIRER'S PUBLIC LIABILITY INSURANCE (REQUIRED)",
      "The hirer's obligation to hold public liability insurance.",
      "",
      "NOISE AND CURFEW (OPTIONAL)",
      "Sound limits and the time music must stop.",
    ].join("\n");
    const criteria = await criteriaOf(checklist, "checklist.txt");
    expect(marks(criteria)).toEqual([
      ["MAXIMUM CAPACITY", false],
      ["HIRER'S PUBLIC LIABILITY INSURANCE", false],
      ["NOISE AND CURFEW", true],
    ]);
    expect(criteria[0].description).toContain("maximum number of people");
  });

  test("a 'How to use this checklist' heading is no clause", async () => {
    const checklist = [
      "# Shareholders' agreement checklist",
      "## How to use this checklist",
      "Read the agreement against each heading below.",
      "## Reserved matters",
      "Decisions that need every shareholder's consent.",
      "## Deadlock resolution",
      "How a deadlock between the shareholders is broken.",
    ].join("\n");
    expect((await criteriaOf(checklist)).map((c) => c.title)).toEqual(["Reserved matters", "Deadlock resolution"]);
  });

  test("a mark that tells two criteria apart stays in their names", async () => {
    const spec = ["| Criteria | Essential | Desirable |", "| --- | --- | --- |", "| Experience | Four years in commercial work | Fire alarms |"].join(
      "\n",
    );
    expect(marks(await criteriaOf(spec))).toEqual([
      ["Experience (essential)", false],
      ["Experience (desirable)", true],
    ]);
  });
});

const CHECKLIST = [
  "# Supplier agreement checklist",
  "## Required clauses",
  "- **Insurance** – the supplier keeps public liability and professional indemnity cover at stated levels and shows evidence on request.",
  "- **Audit rights** – our right to inspect the supplier's records and premises on reasonable notice.",
  "- **Indemnification** – the supplier meets third-party claims arising from its breach.",
  "- **Governing law** – a named governing law and jurisdiction.",
  "## Nice to have",
  "- **Step-in rights** – our right to step in where the supplier fails.",
].join("\n");

const CLAUSES = {
  insurance:
    "7. Insurance. The Supplier shall maintain public liability insurance of not less than £5 million and professional indemnity insurance of not less than £2 million, and shall provide evidence of such insurance on request.",
  audit:
    "8. Records and audit. The Supplier shall keep complete records relating to the Services and shall permit the Customer and its auditors to inspect those records and its premises on reasonable notice.",
  indemnity:
    "9. Third-party claims. The Supplier shall defend the Customer against any claim arising from the Supplier's breach and shall hold the Customer harmless from all damages and reasonable costs awarded.",
  law: "10. Law. This Agreement and any dispute arising from it are governed by the laws of England and Wales, and the courts of England have exclusive jurisdiction.",
};
const PREAMBLE = [
  "# Services agreement",
  "This agreement is made between Aldercote Ltd (the Customer) and Marlowe Services Ltd (the Supplier).",
  "1. Services. The Supplier shall provide the services described in the Schedule with reasonable skill and care, and shall give the Customer written notice of any delay, stating its evidence and the levels of service affected.",
  "2. Fees. The Customer shall pay each undisputed invoice within 30 days of receipt.",
].join("\n\n");
const contract = (...clauses: string[]) => [PREAMBLE, ...clauses].join("\n\n");

describe("a clause the contract never names", () => {
  test("is taken as missing, not met by its description's words elsewhere: the pass is left to a person, who is told", async () => {
    // Without its insurance clause the contract still scored Insurance 3/10 on "evidence", "levels" and "notice", and passed.
    const complete = await review(CHECKLIST, contract(CLAUSES.insurance, CLAUSES.audit, CLAUSES.indemnity, CLAUSES.law));
    expect(complete.verdict).toBe("pass");
    const without = await review(CHECKLIST, contract(CLAUSES.audit, CLAUSES.indemnity, CLAUSES.law));
    const insurance = without.criteria.find((c) => c.title === "Insurance");
    expect(insurance?.score).toBeLessThanOrEqual(2);
    expect(without.verdict).toBe("needs_review");
    expect(without.summary).toContain("Not found: Insurance.");
  });

  test("words every contract uses ('rights', 'entitlement') do not name a clause", async () => {
    // "Audit rights" was met by "rights" in other clauses (9/10 with no word of audit or inspection).
    const rightsElsewhere = "11. Rights of third parties. A person who is not a party has no rights to enforce any term of this Agreement.";
    const out = await review(CHECKLIST, contract(CLAUSES.insurance, CLAUSES.indemnity, CLAUSES.law, rightsElsewhere));
    expect(out.criteria.find((c) => c.title === "Audit rights")?.score).toBeLessThanOrEqual(2);
    expect(out.summary).toContain("Not found: Audit rights.");
  });

  test("a missing nice-to-have holds nothing back", async () => {
    const out = await review(CHECKLIST, contract(CLAUSES.insurance, CLAUSES.audit, CLAUSES.indemnity, CLAUSES.law));
    expect(out.criteria.find((c) => c.title === "Step-in rights")?.score).toBeLessThanOrEqual(2);
    expect(out.verdict).toBe("pass");
  });
});

describe("the words contracts use for a checklist's clause names", () => {
  test("'auditors', 'hold … harmless', 'governed by' name audit rights, an indemnity and the governing law", async () => {
    // Every clause above is written without its checklist name: each is found, and the contract passes.
    const out = await review(CHECKLIST, contract(CLAUSES.insurance, CLAUSES.audit, CLAUSES.indemnity, CLAUSES.law));
    for (const title of ["Audit rights", "Indemnification", "Governing law"]) {
      const c = out.criteria.find((x) => x.title === title);
      expect(c && c.score / c.max_score).toBeGreaterThan(0.5);
    }
  });

  test("'trial period' is a probation period, 'Hols' holidays, 'early termination right' a break clause, 'LDs' liquidated damages", async () => {
    const checklist = [
      "## Must include",
      "- Probation period: its length and the notice during it.",
      "- Holiday entitlement: days of annual leave a year.",
      "- Break clause: the tenant's right to end the lease early.",
      "- Liquidated damages: the rate for late completion.",
    ].join("\n");
    const terms = [
      "4. LDs. £500 a day from the completion date until practical completion.",
      "1. Trial period. The first three months are a trial period, during which either side may end the employment on one week's notice.",
      "2. Hols: 25 days p.a. plus bank holidays; the holiday year runs from January.",
      "3. Tenant's early termination right. The Tenant may end this Lease on 25 December 2029 by giving six months' written notice.",
    ].join("\n\n");
    const out = await review(checklist, terms);
    for (const c of out.criteria) expect(c.score / c.max_score).toBeGreaterThan(0.5);
    expect(out.summary).not.toContain("Not found");
  });
});

describe("a clause named only to be excluded", () => {
  const checklist = [
    "## Required clauses",
    "- **Probation period** – its length and the notice that applies during it.",
    "- **Remedies / injunctive relief** – the disclosing party may seek an injunction.",
    "- **Limitation of liability** – an aggregate cap on each party's liability.",
    "- **Modern slavery** – compliance with the Modern Slavery Act 2015.",
    "- **Payment terms** – fees, invoicing and the payment period.",
  ].join("\n");
  const clauses = {
    probation:
      "4. Probation. The first six months of employment are a probationary period, during which either party may end the employment on one week's notice.",
    remedies:
      "8. Remedies. Each party acknowledges that damages may not be an adequate remedy and that the disclosing party may seek an injunction or other equitable relief.",
    liability:
      "9. Liability. Each party's aggregate liability under this Agreement shall not exceed the fees paid in the twelve months before the claim. Nothing in this Agreement limits or excludes liability for death or personal injury caused by negligence, or for fraud.",
    slavery:
      "10. Modern slavery. The Supplier shall comply with the Modern Slavery Act 2015 and shall take reasonable steps to ensure that there is no slavery or human trafficking in its supply chains.",
    payment:
      "11. Fees. The Customer shall pay each invoice within 30 days. The limitations in clause 9 shall not apply to the Customer's payment obligations.",
  };
  const agreement = (...parts: string[]) =>
    ["# Agreement", "This agreement is made between Halcyon Digital Ltd and its counterparty.", ...parts].join("\n\n");

  test("a contract that provides every clause passes: carve-outs, duties and exceptions are no exclusions", async () => {
    const out = await review(checklist, agreement(...Object.values(clauses)));
    expect(out.verdict).toBe("pass");
    expect(out.summary).not.toContain("Excluded");
    for (const c of out.criteria) expect(c.score / c.max_score).toBeGreaterThan(0.5);
  });

  test("'There is no probationary period' and a waiver of injunctions exclude the clauses they name: a person is told", async () => {
    // Both scored 10/10 and passed: the clause's words are all there.
    const noProbation = "4. Probation. There is no probationary period. The appointment is confirmed from the start date.";
    const waived =
      "8. Remedies. Each party irrevocably waives any right it may otherwise have to apply for an injunction or any other equitable relief.";
    const out = await review(checklist, agreement(noProbation, waived, clauses.liability, clauses.slavery, clauses.payment));
    expect(out.verdict).toBe("needs_review");
    for (const title of ["Probation period", "Remedies / injunctive relief"]) {
      const c = out.criteria.find((x) => x.title === title);
      expect(c?.score).toBeLessThanOrEqual(2);
      expect(c?.rationale).toContain("The input names it only to exclude it:");
    }
    expect(out.summary).toContain('Excluded rather than provided: Probation period ("There is no probationary period.")');
    expect(out.summary).toContain("Remedies / injunctive relief (");
  });

  test("a fee 'no … shall be payable', a manual the franchisor 'does not operate', a right 'not entitled to'", async () => {
    const list = [
      "## Required",
      "- **Cancellation fee** – what the client pays if it cancels the shoot.",
      "- **Operations manual** – the brand standards the franchisee follows.",
      "- **Prepayment rights** – the borrower's right to prepay early.",
      "- **Assignment** – whether either party may transfer the agreement.",
    ].join("\n");
    const denied = agreement(
      "4. Cancellation. The Client may cancel at any time. No cancellation fee, kill fee or other compensation shall be payable by the Client in any circumstances.",
      "6. Standards. The Franchisor does not operate an operations manual and does not impose any brand standards.",
      "5. Prepayment. The Borrower shall not be entitled to prepay all or any part of the Loan before the final repayment date.",
      // A prohibition is how an assignment clause is written: no exclusion.
      "9. Assignment. Neither party shall be entitled to assign this Agreement without the prior written consent of the other.",
    );
    const out = await review(list, denied);
    const excluded = (title: string) => out.criteria.find((c) => c.title === title)?.rationale.includes("only to exclude it");
    expect(["Cancellation fee", "Operations manual", "Prepayment rights"].map(excluded)).toEqual([true, true, true]);
    expect(excluded("Assignment")).toBe(false);
    // Three of four required clauses gone: below the pass line.
    expect(out.verdict).toBe("fail");
  });

  test("a clause written the other way round: a permission without consent, copyright kept, non-refundable, pay-when-paid", async () => {
    const list = [
      "## Required",
      "- **Sub-processors** – no sub-processor is engaged without our prior written authorisation.",
      "- **Copyright** – copyright in the photographs is assigned to us.",
      "- **Deposit** – the buyer's deposit is held in escrow and refunded if the transfer fails.",
      "- **Occupants** – who may live at the property, and with whose consent.",
      "- **Payment** – payment within 30 days, which must not depend on the contractor being paid by the employer.",
    ].join("\n");
    const reversed = agreement(
      "4. Sub-processors. The Processor may engage sub-processors at any time without the Controller's consent.",
      "5. Copyright. Copyright in all photographs remains with the Photographer; the Client receives a licence to use them.",
      "6. Deposit. The deposit is paid to the Seller on signing and is non-refundable in all circumstances.",
      "7. Occupants. No other person may live at the property without the Landlord's written consent.",
      "8. Payment. The Contractor shall make each payment only once it has itself been paid by the Employer.",
    );
    const out = await review(list, reversed);
    const excluded = (title: string) => out.criteria.find((c) => c.title === title)?.rationale.includes("only to exclude it");
    // (Before: each scored in full on its clause's words, and the contract passed.) A prohibition with its exception,
    // "No other person may live … without … consent", is the clause asked for.
    expect(["Sub-processors", "Copyright", "Deposit", "Occupants", "Payment"].map(excluded)).toEqual([true, true, true, false, true]);
    expect(out.verdict).not.toBe("pass");
    // Assigned, with a licence granted back for the photographer's portfolio: the clause asked for.
    const assigned = agreement(
      "5. Copyright. The Photographer assigns to the Client all copyright in the photographs. The Client grants back to the Photographer a non-exclusive licence to show ten photographs in a portfolio.",
    );
    const kept = await review("## Required\n- **Copyright** – copyright in the photographs is assigned to us.", assigned);
    expect(kept.criteria[0].rationale).not.toContain("only to exclude it");
    // A hard-wrapped sentence is one sentence; an exclusive patent licence beside a non-exclusive one to the know-how is
    // the exclusivity asked for.
    const wrapped = agreement(
      "10.1 The Publisher may assign or transfer this agreement, or any of the rights granted by it, to any person or company\non such terms as it thinks fit, without the Author's consent and without notice to the Author.",
      "2.1 The University grants an exclusive licence under the Licensed Patents, and a non-exclusive licence to use the Know-how, in the Field.",
    );
    const items =
      "## Required\n- **No assignment without consent** – the publisher may not assign without the author's written consent.\n- **Exclusivity** – the licence is exclusive in the field.";
    const read = await review(items, wrapped);
    const excludedHere = (title: string) => read.criteria.find((c) => c.title === title)?.rationale.includes("only to exclude it");
    expect([excludedHere("No assignment without consent"), excludedHere("Exclusivity")]).toEqual([true, false]);
  });

  test("'Nothing in this Agreement limits either party's liability' excludes the cap", async () => {
    const uncapped = "9. Liability. Nothing in this Agreement limits either party's liability.";
    const out = await review(checklist, agreement(clauses.probation, clauses.remedies, uncapped, clauses.slavery, clauses.payment));
    expect(out.criteria.find((c) => c.title === "Limitation of liability")?.score).toBeLessThanOrEqual(2);
    expect(out.verdict).toBe("needs_review");
  });
});

describe("checklists written as a standard", () => {
  test("lettered sections ('A. The money') between coded run-in items ('A1 Facility amount. The document must …') keep one list", async () => {
    const text = [
      "Borrowing Review Standard",
      "",
      "How to review",
      "",
      "Items under headings A and B are required. Items under heading C are desirable only.",
      "",
      "A. The money",
      "",
      "A1 Facility amount and purpose. The document must state the maximum amount of the facility and its purpose.",
      "",
      "A2 Interest and fees. The interest rate must be stated, with every fee payable to the lender.",
      "",
      "B. Getting the money back",
      "",
      "B1 Repayment schedule. The document must set out how the loan is repaid.",
      "",
      "B2 Voluntary prepayment. The borrower must be able to prepay all or part of the loan at any time.",
      "",
      "C. Desirable points (not required)",
      "",
      "C1 Security limited to named assets. Security is limited to the assets named in the facility document.",
    ].join("\n");
    // (Before: each section's heading ended the run of items, two at a time, so none was read: the generic criteria.)
    expect((await criteriaOf(text, "checklist.txt")).map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Facility amount and purpose", false],
      ["Interest and fees", false],
      ["Repayment schedule", false],
      ["Voluntary prepayment", false],
      ["Security limited to named assets", true],
    ]);
  });

  test("paragraphs under 'The requirements' are the items, each named by its first sentence; the standard's own headings are not", async () => {
    const text = [
      "# Tenancy Agreement Review Standard",
      "## Why this standard exists",
      "Many landlords want to use their own tenancy agreement rather than our template, so we check it first.",
      "## The requirements",
      "The agreement must state the rent, the day on which it falls due and how it is to be paid. An amount with no due date is not enough.",
      "Any deposit must be protected. The agreement has to commit the landlord to protecting the deposit in a government-authorised scheme within 30 days.",
      "Entry by the landlord or the agent must be on notice. The agreement must say that the landlord will enter only after giving 24 hours' written notice.",
      "## Further points we would like to see (optional)",
      "These two points are good practice. An agreement that lacks them can still be approved.",
      "It is helpful if the agreement deals with pets in a way that allows the tenant to ask for consent to keep a pet.",
      "It is also helpful if the agreement provides for an inventory and check-in report at the start of the tenancy.",
      "## When to escalate",
      "Refer the file to the senior property manager if the rent is more than £4,000 a month.",
    ].join("\n\n");
    // (Before: "Why this standard exists", "The requirements", "When to escalate" … were the criteria.)
    expect((await criteriaOf(text)).map((c) => [c.title, c.optional ?? false])).toEqual([
      ["The agreement must state the rent, the day on which it falls", false],
      ["Any deposit must be protected", false],
      ["Entry by the landlord or the agent must be on notice", false],
      ["It is helpful if the agreement deals with pets in a way", true],
      ["It is also helpful if the agreement provides for an inventory and", true],
    ]);
    // A heading over one paragraph names its item: "3. Board composition (Required)" stays the item.
    const named = [
      "## 1. Parties (Required)",
      "The agreement must name every shareholder.",
      "## 2. Reserved matters (Required)",
      "There must be a list of decisions the company may not take.",
      "## 3. Board composition (Required)",
      "The agreement must state the size of the board.",
    ].join("\n\n");
    expect((await criteriaOf(named)).map((c) => c.title)).toEqual(["Parties", "Reserved matters", "Board composition"]);
  });
});

describe("checklists held out in the twenty-third session (hunt 8)", () => {
  test("items as headings marked (Required)/(Desirable) under 'The standards' beat the standard's own headings", async () => {
    const text = [
      "# Location agreements: our minimum standard",
      "## Why this standard exists",
      "We film in people's homes.",
      "## How to review against it",
      "Each standard below is marked Required or Desirable.",
      "## The standards",
      "### 1. Dates, hours and areas (Required)",
      "The agreement must say which parts of the property we may use.",
      "### 2. Public liability insurance (Required)",
      "We must carry public liability insurance of at least £10 million.",
      "### 3. Owner confidentiality (Desirable)",
      "A promise by the owner not to publish photographs of the set.",
      "## When to refer upwards",
      "Refer any fee above £5,000.",
    ].join("\n\n");
    // (Before: "Why this standard exists", "How to review against it", "The standards" … were the criteria.)
    expect((await criteriaOf(text)).map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Dates, hours and areas", false],
      ["Public liability insurance", false],
      ["Owner confidentiality", true],
    ]);
  });

  test("a numbered list whose items are marked [Required]/[Optional] beside scope bullets; an outcome table named so", async () => {
    const text = [
      "# Nomination agreements: review checklist",
      "## Scope",
      "It does not apply to:",
      "- leases under which the University takes a whole building;",
      "- short-term summer accommodation.",
      "## The items",
      "1. Rooms and academic years [Required]. The agreement identifies the building and the rooms.",
      "2. Rent levels and capped increases [Required]. Rents are stated for each room type.",
      "3. Repair response times [Required]. The agreement sets maximum response times.",
      "4. Accessible rooms [Optional]. A number of adapted rooms is reserved.",
      "## Outcomes",
      "| Outcome | When | Next step |",
      "|---|---|---|",
      "| Sign | Items 1 to 3 all met | Director signs |",
      "| Do not sign | Any of items 1 to 3 not met | Return a mark-up |",
    ].join("\n\n");
    // (Before: "Sign" and "Do not sign" were criteria, and the headings beat the list.)
    expect((await criteriaOf(text)).map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Rooms and academic years", false],
      ["Rent levels and capped increases", false],
      ["Repair response times", false],
      ["Accessible rooms", true],
    ]);
  });

  test("'Required | Optional' columns to tick: a tick under Optional is an optional item", async () => {
    const text = [
      "| Ref | Item | What the agreement must say | Required | Optional |",
      "|---|---|---|---|---|",
      "| C1 | Defined services | The services are described with deliverables. | ✓ | |",
      "| C2 | Right of substitution | The consultancy may send a substitute. | ✓ | |",
      "| C3 | Non-solicitation of staff | Neither side solicits the other's staff. | | ✓ |",
    ].join("\n");
    // (Before: every item required.)
    expect((await criteriaOf(text)).map((c) => [c.title, c.optional ?? false])).toEqual([
      ["Defined services", false],
      ["Right of substitution", false],
      ["Non-solicitation of staff", true],
    ]);
  });
});

describe("a contract of another kind than the checklist's", () => {
  const checklist = [
    "# Commercial Lease Review Checklist",
    "## Required clauses",
    "- **Rent review** – the review dates and basis.",
    "- **Repairs and maintenance** – who repairs what.",
    "- **Insurance** – who insures the building.",
  ].join("\n");
  const body = [
    "1. Rent. The rent of £24,000 a year is reviewed on each fifth anniversary to open market value (the rent review).",
    "2. Repairs. The tenant keeps the interior in repair and the landlord the structure, with maintenance of the common parts.",
    "3. Insurance. The landlord insures the building against the insured risks and recovers the premium.",
  ].join("\n\n");

  test("shares the checklist's words but its title names another kind: the pass is left to a person, who is told", async () => {
    // A managing agent's agreement speaks of rent, repairs and insurance as a lease does: it passed.
    const out = await review(checklist, `# PROPERTY MANAGEMENT AGREEMENT\n\n${body}`);
    expect(out.verdict).toBe("needs_review");
    expect(out.summary).toContain(
      "The input's title (\"PROPERTY MANAGEMENT AGREEMENT\") names another kind of document than the checklist's (management agreement, not lease or tenancy)",
    );
  });

  test("a lease, heads of terms for one, or a title naming no kind pass as before", async () => {
    for (const title of ["# LEASE OF RETAIL UNIT 7", "# HEADS OF TERMS — PROPOSED LEASE", "# AGREEMENT dated 3 March 2025"]) {
      const out = await review(checklist, `${title}\n\n${body}`);
      expect(out.verdict).toBe("pass");
      expect(out.summary).not.toContain("another kind of document");
    }
  });

  test("a statement of works is of a services agreement's kind, though 'works' names building contracts too", async () => {
    const services = checklist.replace("# Commercial Lease Review Checklist", "# Master Services Agreement checklist");
    const out = await review(services, `# STATEMENT OF WORKS No. 4\n\n${body}`);
    expect(out.summary).not.toContain("another kind of document");
  });

  test("an application to rent, or a bank's approval in principle, is no contract of the checklist's kind", async () => {
    // (Before: "APPLICATION TO RENT" named no kind, so it was judged as a tenancy's terms.)
    const tenancy = checklist.replace("# Commercial Lease Review Checklist", "# Tenancy Agreement Review Standard");
    const out = await review(tenancy, `# FERNLEIGH & PRYCE LETTINGS: APPLICATION TO RENT\n\n${body}`);
    expect(out.verdict).toBe("needs_review");
    expect(out.summary).toContain("names another kind of document than the checklist's (application or booking form, not lease or tenancy)");
  });

  test("a checklist whose title names no kind checks none", async () => {
    const generic = checklist.replace("# Commercial Lease Review Checklist", "# Contract review checklist");
    expect((await review(generic, `# PROPERTY MANAGEMENT AGREEMENT\n\n${body}`)).verdict).toBe("pass");
  });
});
