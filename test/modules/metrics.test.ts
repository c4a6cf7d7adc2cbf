// GET /metrics: off unless ASSAY_METRICS=1; then only for admins (session or key) and the metrics token; the text
// carries requests by route pattern, runs, queues, extraction and credits, and passes `promtool check metrics`.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { indexNext } from "../../src/modules/reference-documents/worker";
import { runTick } from "../../src/modules/runs/worker";
import { type Harness, harness, signUp } from "../helpers";

const TOKEN = "scrape-token-0123456789abcdef";
type User = Awaited<ReturnType<typeof signUp>>;

/** One sample's value from the text format: `name{labels} value`, labels matched as given (in any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return null;
}

test("off by default: /metrics is an unknown route, even for an admin", async () => {
  const h = await harness();
  const admin = await signUp(h, undefined, "admin");
  const r = await h.call("GET", "/metrics", { token: admin.session });
  expect(r.status).toBe(404);
  expect(r.body.error.code).toBe("not_found");
});

describe("with ASSAY_METRICS=1", () => {
  let h: Harness;
  let admin: User;
  let member: User;
  let wf: string;

  beforeAll(async () => {
    h = await harness({ ASSAY_METRICS: "1", ASSAY_METRICS_TOKEN: TOKEN });
    admin = await signUp(h, undefined, "admin");
    member = await signUp(h);
    const created = await h.call("POST", "/v1/workflows", {
      token: member.liveKey,
      body: { product_code: "education", name: "Essays", output_format: "json", user_prompt: "Grade the essay." },
    });
    expect(created.status).toBe(201);
    wf = created.body.id;
  });

  test("only the metrics token, an admin's session or an admin's key may read it", async () => {
    const status = async (token?: string) => (await h.call("GET", "/metrics", token ? { token } : {})).status;
    expect(await status()).toBe(401);
    expect(await status("wrong-token-0123456789abcdef")).toBe(401);
    expect(await status(member.session)).toBe(403);
    expect(await status(member.liveKey)).toBe(403);
    expect(await status(TOKEN)).toBe(200);
    expect(await status(admin.session)).toBe(200);
    expect(await status(admin.liveKey)).toBe(200);
    const r = await h.call("GET", "/metrics", { token: TOKEN });
    expect(r.headers.get("content-type")).toContain("text/plain");
  });

  test("requests by route pattern and status, queue depth while a run waits, then the run, extraction and credits", async () => {
    const id = (
      await createDocumentFromBytes(h.ctx, { workspaceId: member.workspaceId, filename: "essay.txt", bytes: new TextEncoder().encode("An essay.") })
    ).id;
    const run = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: member.liveKey, body: { input_documents: [id] } });
    expect(run.status).toBe(202);
    await h.call("GET", `/v1/runs/${run.body.id}`, { token: member.liveKey });
    await h.call("GET", "/v1/runs/run_doesnotexist000000000000", { token: member.liveKey });

    await Bun.sleep(20); // requests are counted after their response has gone out
    let text = (await h.call("GET", "/metrics", { token: TOKEN })).text;
    // The route's pattern, never the id in the URL: label sets stay bounded.
    expect(sample(text, "assay_http_requests_total", { route: "/v1/runs/:run_id", status: "200" })).toBe(1);
    expect(sample(text, "assay_http_requests_total", { route: "/v1/runs/:run_id", status: "404" })).toBe(1);
    expect(text).not.toContain(run.body.id);
    expect(sample(text, "assay_http_request_duration_seconds_count", { route: "/v1/runs/:run_id" })).toBe(2);
    expect(sample(text, "assay_queue_depth", { queue: "runs" })).toBe(1);
    expect(sample(text, "assay_runs_active", { status: "queued", product: "education" })).toBe(1);
    expect(sample(text, "assay_extraction_duration_seconds_count", { format: "txt", outcome: "ok" })).toBe(1);

    while ((await indexNext(h.ctx)) || (await runTick(h.ctx))) {}
    const done = await h.call("GET", `/v1/runs/${run.body.id}`, { token: member.liveKey });
    expect(done.body.status).toBe("succeeded");
    text = (await h.call("GET", "/metrics", { token: TOKEN })).text;
    expect(sample(text, "assay_queue_depth", { queue: "runs" })).toBe(0);
    expect(sample(text, "assay_runs_finished_total", { status: "succeeded", product: "education" })).toBe(1);
    expect(sample(text, "assay_run_duration_seconds_count", { status: "succeeded" })).toBe(1);
    expect(done.body.charged_credits).toBeGreaterThan(0);
    expect(sample(text, "assay_credits_charged_total")).toBe(done.body.charged_credits);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
  });

  // CI installs Debian's prometheus package (and fails here without it); elsewhere a missing promtool is a skip.
  test.skipIf(!existsSync("/usr/bin/promtool") && !process.env.ASSAY_CI)("the output passes promtool check metrics", async () => {
    const text = (await h.call("GET", "/metrics", { token: TOKEN })).text;
    const check = Bun.spawnSync(["/usr/bin/promtool", "check", "metrics"], { stdin: new TextEncoder().encode(text) });
    expect(`${check.stdout}${check.stderr}`.trim()).toBe("");
    expect(check.exitCode).toBe(0);
  });
});
