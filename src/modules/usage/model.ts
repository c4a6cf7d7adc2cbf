// Wire format of the usage report and the balance (spec §2 Usage report, Balance).
import { t } from "elysia";
import { JsonInteger } from "../../http/body";

export const UsageQuery = t.Object({
  from: t.Optional(t.String({ description: "First day (YYYY-MM-DD, UTC, inclusive); default: first day of this month", examples: ["2026-11-01"] })),
  to: t.Optional(t.String({ description: "Last day (inclusive); default: last day of this month", examples: ["2026-11-30"] })),
  group_by: t.Optional(t.Literal("workflow")),
});

export const UsageReport = t.Object(
  {
    period: t.Object({ from: t.String(), to: t.String() }),
    total_runs: JsonInteger(),
    total_credits: t.Number(),
    by_workflow: t.Array(t.Object({ workflow_id: t.String(), name: t.String(), runs: JsonInteger(), credits: t.Number() })),
  },
  { title: "UsageReport" },
);

export const Balance = t.Object(
  {
    pro_credits: t.Number({ examples: [98.5] }),
    bonus_pro: t.Number(),
    regular_pro: t.Number(),
    basic_credits_excluded: t.Boolean(),
  },
  { title: "Balance" },
);
