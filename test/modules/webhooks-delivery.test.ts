// Webhook deliveries against a real receiver (Bun.serve on port 0): signatures (ours and Stripe's verifier), fan-out,
// retries on the schedule, timeout, Retry-After, 410, the window, restarts, the delivery log and manual retry.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import type { Context } from "../../src/context";
import { createContext } from "../../src/create-context";
import { closeDb, tx } from "../../src/db/client";
import { events, webhookDeliveries, webhookEndpoints } from "../../src/db/schema";
import { registerJobs } from "../../src/jobs";
import { createUser } from "../../src/modules/auth/service";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { runTick } from "../../src/modules/runs/worker";
import { claimDelivery, dispatchEvents, sendAttempt } from "../../src/modules/webhooks/delivery";
import { type EventType, notifyWebhooks, recordEvent } from "../../src/modules/webhooks/events";
import { createEndpoint } from "../../src/modules/webhooks/service";
import { verifySignature } from "../../src/modules/webhooks/signature";
import { webhookWorker } from "../../src/modules/webhooks/worker";
import { bytesStream, objectStore, signedDownloadUrl } from "../../src/storage";
import { type Harness, harness, signUp, TestClock, testConfig } from "../helpers";

interface Hit {
  path: string;
  headers: Headers;
  body: string;
}
type Reply = () => Response | Promise<Response>;

/** A real HTTP receiver. `replies` are used in order; the last one repeats. */
function receiver(...replies: Reply[]) {
  const hits: Hit[] = [];
  const script = replies.length ? replies : [() => new Response("ok")];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      hits.push({ path: new URL(req.url).pathname, headers: req.headers, body: await req.text() });
      return script[Math.min(hits.length - 1, script.length - 1)]();
    },
  });
  receivers.push(server);
  return { hits, url: (p = "/hook") => `http://127.0.0.1:${server.port}${p}`, paths: () => hits.map((x) => x.path).sort() };
}
const receivers: ReturnType<typeof Bun.serve>[] = [];
afterAll(async () => {
  for (const s of receivers) s.stop(true);
});

const status =
  (code: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(`status ${code}`, { status: code, headers });

async function setup(env: Record<string, string> = {}, clock?: TestClock) {
  const h = await harness(env, clock);
  const u = await signUp(h);
  const worker = webhookWorker(h.ctx);
  const endpoint = async (url: string, extra: Record<string, unknown> = {}, token = u.liveKey) => {
    const r = await h.call("POST", "/v1/webhook-endpoints", { token, body: { url, ...extra } });
    expect(r.status).toBe(201);
    return r.body as { id: string; secret: string };
  };
  return { h, u, worker, endpoint };
}

function emit(ctx: Context, workspaceId: string, type: EventType, data: Record<string, unknown>): Promise<string> {
  const subjectId = String((Object.values(data)[0] as { id?: string }).id);
  return tx(ctx.db, (t) => recordEvent(t, ctx.clock, { workspaceId, type, subjectId, data }));
}

const run = (id = "run_test1") => ({ run: { id, object: "run", status: "succeeded", output: { score: 91 }, charged_credits: 2 } });

/** Ticks until the worker finds nothing to do. */
async function drain(worker: { tick(): Promise<boolean> }) {
  for (let i = 0; i < 100 && (await worker.tick()); i++);
}

async function deliveriesOf(h: Harness, endpointId: string) {
  return await h.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
}

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 3000) {
  const until = Date.now() + ms;
  while (!(await cond()) && Date.now() < until) await Bun.sleep(10);
  return cond();
}

describe("a delivery", () => {
  test("is a signed POST that our verifier and Stripe's library both accept", async () => {
    const { h, u, worker, endpoint } = await setup();
    const rx = receiver();
    const e = await endpoint(rx.url());
    const eventId = await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await drain(worker);

    expect(rx.hits).toHaveLength(1);
    const [hit] = rx.hits;
    const [row] = await deliveriesOf(h, e.id);
    expect(hit.headers.get("content-type")).toBe("application/json");
    expect(hit.headers.get("user-agent")).toBe("Assay-Webhooks/1.0");
    expect(hit.headers.get("x-service-event")).toBe("run.succeeded");
    expect(hit.headers.get("x-service-delivery")).toBe(row.id);
    expect(row.id).toMatch(/^whd_/);
    const header = hit.headers.get("x-service-signature")!;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const payload = JSON.parse(hit.body);
    expect(payload).toEqual({ id: eventId, type: "run.succeeded", created: expect.any(Number), data: run() });
    expect(Math.abs(payload.created - Date.now() / 1000)).toBeLessThan(60);

    expect(verifySignature(hit.body, header, e.secret)).toBe(true);
    expect(verifySignature(hit.body.replace("91", "92"), header, e.secret)).toBe(false);
    expect(verifySignature(hit.body, header, `whsec_${"x".repeat(32)}`)).toBe(false);
    const t = Number(/t=(\d+)/.exec(header)![1]);
    expect(verifySignature(hit.body, header, e.secret, { nowSeconds: t + 299 })).toBe(true);
    expect(verifySignature(hit.body, header, e.secret, { nowSeconds: t + 301 })).toBe(false);

    const stripe = new Stripe("sk_test_x");
    const event = await stripe.webhooks.constructEventAsync(hit.body, header, e.secret);
    expect(event).toMatchObject({ id: eventId, type: "run.succeeded", data: { run: { id: "run_test1" } } });
    await expect(stripe.webhooks.constructEventAsync(hit.body, header, `whsec_${"y".repeat(32)}`)).rejects.toThrow();
    await expect(stripe.webhooks.constructEventAsync(`${hit.body} `, header, e.secret)).rejects.toThrow();

    expect(row.status).toBe("succeeded");
    expect(row.attempts).toEqual([{ at: expect.any(String), status: 200, duration_ms: expect.any(Number) }]);
    expect((await h.ctx.db.select().from(events).where(eq(events.id, eventId)).limit(1))[0]?.dispatchedAt).toBeNumber();
  });

  test("reference_document.ready carries {reference_document}", async () => {
    const { h, u, worker, endpoint } = await setup();
    const rx = receiver();
    const e = await endpoint(rx.url(), { events: ["reference_document.ready"] });
    await emit(h.ctx, u.workspaceId, "reference_document.ready", { reference_document: { id: "ref_1", status: "ready" } });
    await drain(worker);
    expect(rx.hits).toHaveLength(1);
    expect(JSON.parse(rx.hits[0].body)).toMatchObject({ type: "reference_document.ready", data: { reference_document: { id: "ref_1" } } });
    expect(verifySignature(rx.hits[0].body, rx.hits[0].headers.get("x-service-signature")!, e.secret)).toBe(true);
  });

  test("is never sent twice at once, even with several loops ticking together", async () => {
    const { h, u, endpoint } = await setup();
    const rx = receiver(async () => {
      await Bun.sleep(150);
      return new Response("ok");
    });
    await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.failed", run());
    const loops = [webhookWorker(h.ctx), webhookWorker(h.ctx), webhookWorker(h.ctx)];
    await Promise.all(loops.map((w) => w.tick()));
    await Promise.all(loops.map((w) => w.tick()));
    expect(rx.hits).toHaveLength(1);
  });
});

describe("fan-out", () => {
  test("once to each active endpoint subscribed to the type; never to others", async () => {
    const { h, u, worker, endpoint } = await setup();
    const other = await signUp(h);
    const rx = receiver();
    await endpoint(rx.url("/all"));
    const failedOnly = await endpoint(rx.url("/failed-only"), { events: ["run.failed"] });
    const disabled = await endpoint(rx.url("/disabled"));
    await h.call("PATCH", `/v1/webhook-endpoints/${disabled.id}`, { token: u.liveKey, body: { status: "disabled" } });
    const deleted = await endpoint(rx.url("/deleted"));
    await h.call("DELETE", `/v1/webhook-endpoints/${deleted.id}`, { token: u.liveKey });
    await endpoint(rx.url("/other-workspace"), {}, other.liveKey);

    const first = await emit(h.ctx, u.workspaceId, "run.succeeded", run("run_a"));
    await emit(h.ctx, u.workspaceId, "run.failed", run("run_b"));
    await emit(h.ctx, u.workspaceId, "run.canceled", run("run_c"));
    await drain(worker);

    const seen = rx.hits.map((x) => `${x.path} ${JSON.parse(x.body).type}`).sort();
    expect(seen).toEqual(["/all run.canceled", "/all run.failed", "/all run.succeeded", "/failed-only run.failed"]);
    expect(await deliveriesOf(h, failedOnly.id)).toHaveLength(1);

    // Dispatching the same event again (say, after a crash before dispatched_at was written) adds nothing.
    await tx(h.ctx.db, (t) => t.update(events).set({ dispatchedAt: null }).where(eq(events.id, first)));
    expect(await dispatchEvents(h.ctx.db, h.ctx.clock)).toBe(1);
    expect(await h.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, first))).toHaveLength(1);
    await drain(worker);
    expect(rx.hits).toHaveLength(4);
  });

  test("a workflow's own endpoint gets only the types it subscribes to, and each once", async () => {
    const { h, u, worker, endpoint } = await setup();
    const rx = receiver();
    const canceledOnly = await endpoint(rx.url("/canceled-only"), { events: ["run.canceled"] });
    const all = await endpoint(rx.url("/all"));
    const workflowFor = async (endpointId: string) =>
      (
        await h.call("POST", "/v1/workflows", {
          token: u.liveKey,
          body: { product_code: "general", name: "hooked", webhook_endpoint_id: endpointId },
        })
      ).body.id;
    const doc = (
      await createDocumentFromBytes(h.ctx, { workspaceId: u.workspaceId, filename: "a.txt", bytes: new TextEncoder().encode("some text") })
    ).id;
    const start = async (wf: string) =>
      (await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [doc] } })).body.id;
    const wfCanceled = await workflowFor(canceledOnly.id);
    const succeeded = await start(wfCanceled);
    expect(await runTick(h.ctx)).toBe(true);
    const canceled = await start(wfCanceled);
    expect((await h.call("POST", `/v1/runs/${canceled}/cancel`, { token: u.liveKey })).body.status).toBe("canceled");
    await start(await workflowFor(all.id)); // named and subscribed: still one delivery per event
    expect(await runTick(h.ctx)).toBe(true);
    await drain(worker);
    const seen = rx.hits.map((x) => `${x.path} ${JSON.parse(x.body).type} ${JSON.parse(x.body).data.run.id}`).sort();
    expect(seen.filter((s) => s.startsWith("/canceled-only"))).toEqual([`/canceled-only run.canceled ${canceled}`]);
    expect(seen.some((s) => s.includes(succeeded) && s.startsWith("/canceled-only"))).toBe(false);
    expect(seen.filter((s) => s.startsWith("/all"))).toHaveLength(3);
  });
});

describe("retries", () => {
  test("a receiver that fails twice gets the third attempt after the schedule's gaps", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1s,2s" }, clock);
    const rx = receiver(status(500), status(502), status(200));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    const start = clock.t;

    expect(await worker.tick()).toBe(true);
    expect(rx.hits).toHaveLength(1);
    let [row] = await deliveriesOf(h, e.id);
    expect(row).toMatchObject({ status: "pending", firstAttemptAt: start, nextAttemptAt: start + 1000 });
    expect(row.attempts[0]).toMatchObject({ status: 500, error: expect.stringContaining("500") });

    clock.advance(999);
    expect(await worker.tick()).toBe(false);
    clock.advance(1);
    await worker.tick();
    expect(rx.hits).toHaveLength(2);
    clock.advance(1999);
    expect(await worker.tick()).toBe(false);
    clock.advance(1);
    await worker.tick();
    expect(rx.hits).toHaveLength(3);

    [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("succeeded");
    expect(row.nextAttemptAt).toBeNull();
    expect(row.attempts.map((a) => a.status)).toEqual([500, 502, 200]);
    expect(row.attempts.map((a) => Date.parse(a.at) - start)).toEqual([0, 1000, 3000]);
    expect(row.attempts[2].error).toBeUndefined();
    // Each attempt is signed afresh with its own timestamp.
    const ts = rx.hits.map((x) => Number(/t=(\d+)/.exec(x.headers.get("x-service-signature")!)![1]));
    expect(ts).toEqual([start / 1000, start / 1000 + 1, start / 1000 + 3]);
  });

  test("the last delay repeats until the window closes; then the delivery is failed and the dead endpoint disabled", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1s,2s", ASSAY_WEBHOOK_RETRY_WINDOW: "5s" }, clock);
    const rx = receiver(status(500));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.failed", run());
    const start = clock.t;
    for (let i = 0; i <= 16; i++) {
      await drain(worker);
      clock.advance(500);
    }
    const [row] = await deliveriesOf(h, e.id);
    // attempts at 0, 1 s, 3 s, 5 s; the next would be at 7 s, past the 5 s window
    expect(row.attempts.map((a) => Date.parse(a.at) - start)).toEqual([0, 1000, 3000, 5000]);
    expect(row.status).toBe("failed");
    expect(row.nextAttemptAt).toBeNull();
    expect((await h.call("GET", `/v1/webhook-endpoints/${e.id}`, { token: u.liveKey })).body.status).toBe("disabled");
  });

  test("an endpoint with a successful delivery in the last 24 h stays active when another fails", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1s", ASSAY_WEBHOOK_RETRY_WINDOW: "1s" }, clock);
    const rx = receiver(status(200), status(500));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run("run_ok"));
    await drain(worker);
    await emit(h.ctx, u.workspaceId, "run.failed", run("run_bad"));
    await drain(worker);
    clock.advance(1000);
    await drain(worker);
    expect((await deliveriesOf(h, e.id)).map((d) => d.status).sort()).toEqual(["failed", "succeeded"]);
    expect((await h.call("GET", `/v1/webhook-endpoints/${e.id}`, { token: u.liveKey })).body.status).toBe("active");
  });

  test("a receiver that hangs is cut at the timeout and the attempt recorded with an error", async () => {
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_TIMEOUT_MS: "300" });
    const rx = receiver(() => new Promise<Response>(() => {}));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    const t0 = performance.now();
    await worker.tick();
    const elapsed = performance.now() - t0;
    expect(rx.hits).toHaveLength(1);
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(2000);
    const [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("pending");
    expect(row.lockedUntil).toBeNull();
    expect(row.attempts[0]).toMatchObject({ status: null, error: "no answer within 300 ms" });
    expect(row.attempts[0].duration_ms).toBeGreaterThanOrEqual(280);
  });

  test("a refused connection is recorded and retried", async () => {
    const { h, u, worker, endpoint } = await setup();
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const closedPort = probe.port;
    probe.stop(true);
    const e = await endpoint(`http://127.0.0.1:${closedPort}/hook`);
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();
    const [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("pending");
    expect(row.attempts[0]).toMatchObject({ status: null, error: expect.stringContaining("could not connect") });
  });

  test("Retry-After on 503 (seconds) and 429 (HTTP date) replaces the schedule's delay", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1s" }, clock);
    const start = clock.t;
    const rx = receiver(
      status(503, { "retry-after": "120" }),
      () => new Response("slow down", { status: 429, headers: { "retry-after": new Date(start + 150_000).toUTCString() } }),
      status(204),
    );
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();
    expect((await deliveriesOf(h, e.id))[0].nextAttemptAt).toBe(start + 120_000);
    clock.advance(119_000);
    expect(await worker.tick()).toBe(false);
    clock.advance(1_000);
    await worker.tick();
    expect(rx.hits).toHaveLength(2);
    expect((await deliveriesOf(h, e.id))[0].nextAttemptAt).toBe(start + 150_000);
    clock.advance(30_000);
    await worker.tick();
    const [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("succeeded");
    expect(row.attempts.map((a) => a.status)).toEqual([503, 429, 204]);
    expect(row.attempts[0].error).toContain("Retry-After 120 s");
  });

  test("a Retry-After with decimals is seconds (not a date in 2001)", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1h" }, clock);
    const e = await endpoint(receiver(status(503, { "retry-after": "90.5" })).url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();
    expect((await deliveriesOf(h, e.id))[0].nextAttemptAt).toBe(clock.t + 90_500);
  });

  test("a Retry-After beyond the window ends the delivery as failed", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_WINDOW: "1h" }, clock);
    const rx = receiver(status(503, { "retry-after": "7200" }));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();
    const [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("failed");
    expect(row.attempts).toHaveLength(1);
  });

  test("410 Gone fails the delivery and disables the endpoint at once; later events skip it", async () => {
    const { h, u, worker, endpoint } = await setup();
    const rx = receiver(status(410));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await drain(worker);
    const [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("failed");
    expect(row.attempts).toEqual([expect.objectContaining({ status: 410, error: expect.stringContaining("disabled") })]);
    expect((await h.call("GET", `/v1/webhook-endpoints/${e.id}`, { token: u.liveKey })).body.status).toBe("disabled");
    await emit(h.ctx, u.workspaceId, "run.failed", run("run_2"));
    await drain(worker);
    expect(rx.hits).toHaveLength(1);
    expect(await deliveriesOf(h, e.id)).toHaveLength(1);
  });

  test("deliveries wait while their endpoint is disabled and resume when it is re-enabled; deleting stops them", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1s" }, clock);
    const rx = receiver(status(500), status(200));
    const e = await endpoint(rx.url());
    const gone = await endpoint(rx.url("/gone"));
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();
    await worker.tick();
    expect(rx.hits).toHaveLength(2);
    const first = rx.hits[0].path === "/hook" ? "/hook" : "/gone";
    const retrying = first === "/hook" ? e : gone;
    const other = first === "/hook" ? gone : e;
    // `retrying` got the 500 and waits; disable it, then delete the other one after its success
    await h.call("PATCH", `/v1/webhook-endpoints/${retrying.id}`, { token: u.liveKey, body: { status: "disabled" } });
    clock.advance(5_000);
    expect(await worker.tick()).toBe(false);
    await h.call("PATCH", `/v1/webhook-endpoints/${retrying.id}`, { token: u.liveKey, body: { status: "active" } });
    expect(await worker.tick()).toBe(true);
    expect((await deliveriesOf(h, retrying.id))[0].status).toBe("succeeded");

    rx.hits.length = 0;
    await emit(h.ctx, u.workspaceId, "run.failed", run("run_2"));
    await dispatchEvents(h.ctx.db, h.ctx.clock);
    await h.call("DELETE", `/v1/webhook-endpoints/${other.id}`, { token: u.liveKey });
    await drain(worker);
    expect(rx.hits.map((x) => x.path)).toEqual([first]);
    const stopped = (await deliveriesOf(h, other.id)).find((d) => d.eventType === "run.failed")!;
    expect(stopped).toMatchObject({ status: "failed", attempts: [] });
  });
});

describe("restarts", () => {
  test("deliveries pending when a process stops are delivered by the next one, under the real scheduler", async () => {
    const config = await testConfig({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "200ms" });
    const rx = receiver(status(500), status(200));
    const first = await createContext(config);
    const user = await createUser(first.db, first.clock, config, { email: "restart@example.com", password: "correct horse battery" });
    const e = await createEndpoint(first.db, first.clock, { workspaceId: user.workspaceId, url: rx.url() });
    await emit(first, user.workspaceId, "run.succeeded", run("run_1"));
    await webhookWorker(first).tick(); // first attempt: 500, retry pending
    await emit(first, user.workspaceId, "run.failed", run("run_2")); // not even dispatched yet
    await closeDb(first.db);

    const second = await createContext(config);
    registerJobs(second);
    second.runtime.scheduler.start();
    try {
      expect(await waitFor(() => rx.hits.length >= 3)).toBe(true);
      await waitFor(async () => (await second.db.select().from(webhookDeliveries)).every((d) => d.status === "succeeded"));
    } finally {
      await second.runtime.scheduler.stop();
    }
    const rows = await second.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, e.id));
    expect(rows.map((d) => [d.eventType, d.status, d.attempts.length]).sort()).toEqual([
      ["run.failed", "succeeded", 1],
      ["run.succeeded", "succeeded", 2],
    ]);
    await closeDb(second.db);
  });

  test("a delivery claimed by a process that crashed is picked up once its claim expires", async () => {
    const clock = new TestClock();
    const config = await testConfig({ ASSAY_WEBHOOK_TIMEOUT_MS: "1000" });
    const rx = receiver();
    const first = await createContext(config, clock);
    const user = await createUser(first.db, clock, config, { email: "crash@example.com", password: "correct horse battery" });
    await createEndpoint(first.db, clock, { workspaceId: user.workspaceId, url: rx.url() });
    await emit(first, user.workspaceId, "run.succeeded", run());
    await dispatchEvents(first.db, clock);
    expect(await claimDelivery(first.db, clock, config)).not.toBeNull(); // …and the process dies before sending
    await closeDb(first.db);

    const second = await createContext(config, clock);
    const worker = webhookWorker(second);
    expect(await worker.tick()).toBe(false);
    clock.advance(1000 + 30_000 - 1);
    expect(await worker.tick()).toBe(false);
    clock.advance(2);
    expect(await worker.tick()).toBe(true);
    expect(rx.hits).toHaveLength(1);
    expect((await second.db.select().from(webhookDeliveries).limit(1))[0]?.status).toBe("succeeded");
    await closeDb(second.db);
  });

  test("notifyWebhooks wakes an idle worker so delivery does not wait for the next poll", async () => {
    const { h, u, endpoint } = await setup();
    const rx = receiver();
    await endpoint(rx.url());
    h.ctx.runtime.scheduler.add(webhookWorker(h.ctx));
    h.ctx.runtime.scheduler.start();
    try {
      await Bun.sleep(100); // every loop is now asleep for its 1 s idle time
      await emit(h.ctx, u.workspaceId, "run.succeeded", run());
      const t0 = performance.now();
      notifyWebhooks(h.ctx);
      expect(await waitFor(() => rx.hits.length === 1, 2000)).toBe(true);
      expect(performance.now() - t0).toBeLessThan(700);
    } finally {
      await h.ctx.runtime.scheduler.stop();
    }
  });
});

describe("fairness, fresh links, every address", () => {
  test("20 deliveries hanging at workspace A's receiver do not delay workspace B's delivery", async () => {
    const { h, u, endpoint } = await setup({ ASSAY_WEBHOOK_TIMEOUT_MS: "4000" });
    const b = await signUp(h);
    const hanging: (() => void)[] = [];
    const slow = receiver(() => new Promise<Response>((resolve) => hanging.push(() => resolve(new Response("late")))));
    const fast = receiver();
    await endpoint(slow.url());
    const eb = await endpoint(fast.url(), {}, b.liveKey);
    h.ctx.runtime.scheduler.add(webhookWorker(h.ctx));
    h.ctx.runtime.scheduler.start();
    try {
      for (let i = 0; i < 20; i++) await emit(h.ctx, u.workspaceId, "run.succeeded", run(`run_a${i}`));
      notifyWebhooks(h.ctx);
      expect(await waitFor(() => slow.hits.length >= 2, 2000)).toBe(true); // A's receiver now holds deliveries
      await emit(h.ctx, b.workspaceId, "run.succeeded", run("run_b"));
      const due = Date.now();
      notifyWebhooks(h.ctx);
      expect(await waitFor(() => fast.hits.length === 1, 3000)).toBe(true);
      const delay = Date.now() - due;
      console.log(`B's delivery arrived ${delay} ms after it was due, with ${slow.hits.length} of A's hanging`);
      expect(delay).toBeLessThan(1000);
      // The receiver has answered; the attempt is recorded a moment after (another transaction).
      expect(await waitFor(async () => (await deliveriesOf(h, eb.id))[0].status === "succeeded", 2000)).toBe(true);
      // A's receiver never held more than the per-endpoint cap at once.
      expect(slow.hits.length).toBeLessThanOrEqual(2);
    } finally {
      for (const release of hanging) release();
      await h.ctx.runtime.scheduler.stop();
    }
  });

  test("a retry hours later carries a download link signed afresh, which downloads the file", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_SCHEDULE: "3h" }, clock);
    const key = `runs/${u.workspaceId}/run_fresh/output.md`;
    await objectStore(h.ctx).put(key, bytesStream(new TextEncoder().encode("# Evaluation")), { maxBytes: 100 });
    const file = signedDownloadUrl(h.ctx, key, { filename: "run_fresh.md", contentType: "text/markdown" });
    const rx = receiver(status(500), status(200));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", {
      run: { id: "run_fresh", object: "run", output_file: { ...file, mime_type: "text/markdown" } },
    });
    await worker.tick();
    clock.advance(3 * 3600_000 + 60_000);
    await worker.tick();
    expect(rx.hits).toHaveLength(2);
    const download = (url: string) => h.app.handle(new Request(url));
    // What was stored has expired by now; what was sent downloads.
    expect((await download(file.url)).status).toBe(403);
    const sent = JSON.parse(rx.hits[1].body).data.run.output_file;
    expect(sent.url).not.toBe(file.url);
    expect(Date.parse(sent.expires_at)).toBe(Math.floor(clock.now() / 1000) * 1000 + 3600_000);
    const res = await download(sent.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("# Evaluation");
    // The signature covers the body as sent.
    expect(verifySignature(rx.hits[1].body, rx.hits[1].headers.get("x-service-signature") ?? "", e.secret, { nowSeconds: clock.now() / 1000 })).toBe(
      true,
    );
  });

  test("a link that does not verify is sent as it is (re-signing never signs something new)", async () => {
    const { h, u, worker, endpoint } = await setup();
    const rx = receiver();
    await endpoint(rx.url());
    const forged = { url: "http://localhost/v1/objects/runs/ws_other/run_x/output.md?expires=1&sig=forged", expires_at: "2001-01-01T00:00:00.000Z" };
    await emit(h.ctx, u.workspaceId, "run.succeeded", { run: { id: "run_meta", metadata: { link: forged } } });
    await drain(worker);
    expect(JSON.parse(rx.hits[0].body).data.run.metadata.link).toEqual(forged);
  });

  test("a plain-HTTP host whose first address is unusable is reached at the next checked address", async () => {
    const { h, u, endpoint } = await setup();
    const rx = receiver(); // listens on 127.0.0.1 only: [::1] refuses
    const port = new URL(rx.url()).port;
    const e = await endpoint(`http://receiver.test:${port}/hook`);
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await dispatchEvents(h.ctx.db, h.ctx.clock);
    const claimed = await claimDelivery(h.ctx.db, h.ctx.clock, h.ctx.config);
    expect(claimed).not.toBeNull();
    const [endpointRow] = await h.ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, e.id)).limit(1);
    const resolve = async () => [
      { address: "::1", family: 6 },
      { address: "127.0.0.1", family: 4 },
    ];
    const outcome = await sendAttempt(
      h.ctx.clock,
      h.ctx.config,
      endpointRow as NonNullable<typeof endpointRow>,
      claimed as NonNullable<typeof claimed>,
      resolve,
    );
    expect(outcome.ok).toBe(true);
    expect(rx.hits).toHaveLength(1);
    expect(rx.hits[0].headers.get("host")).toBe(`receiver.test:${port}`);
  });
});

describe("delivery log and manual retry", () => {
  test("GET …/deliveries lists every attempt; POST …/retry resends now", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({}, clock);
    const rx = receiver(status(500), status(200));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();

    const log = await h.call("GET", `/v1/webhook-endpoints/${e.id}/deliveries`, { token: u.liveKey });
    expect(log.status).toBe(200);
    expect(log.body.next_cursor).toBeNull();
    const [d] = log.body.data;
    expect(d).toEqual({
      id: expect.stringMatching(/^whd_/),
      object: "webhook_delivery",
      endpoint_id: e.id,
      event_id: expect.stringMatching(/^evt_/),
      event_type: "run.succeeded",
      status: "pending",
      attempts: [{ at: new Date(clock.t).toISOString(), status: 500, duration_ms: expect.any(Number), error: expect.any(String) }],
      next_attempt_at: new Date(clock.t + 60_000).toISOString(),
      created_at: new Date(clock.t).toISOString(),
    });

    // One delivery with its payload: the event as the receiver got it.
    const one = await h.call("GET", `/v1/webhook-endpoints/${e.id}/deliveries/${d.id}`, { token: u.liveKey });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ ...d, payload: { id: d.event_id, type: "run.succeeded" } });
    expect(one.body.payload).toEqual(JSON.parse(rx.hits[0].body));
    const other = await signUp(h);
    expect((await h.call("GET", `/v1/webhook-endpoints/${e.id}/deliveries/${d.id}`, { token: other.liveKey })).status).toBe(404);

    const retry = await h.call("POST", `/v1/webhook-endpoints/${e.id}/deliveries/${d.id}/retry`, { token: u.liveKey });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: d.id, status: "succeeded", next_attempt_at: null });
    expect(retry.body.attempts.map((a: any) => a.status)).toEqual([500, 200]);
    expect(rx.hits).toHaveLength(2);

    const again = await h.call("POST", `/v1/webhook-endpoints/${e.id}/deliveries/${d.id}/retry`, { token: u.liveKey });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("invalid_state");
  });

  test("a failed delivery retried by hand: failure keeps it failed with the attempt recorded; success succeeds", async () => {
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_RETRY_WINDOW: "1s", ASSAY_WEBHOOK_RETRY_SCHEDULE: "5s" });
    const rx = receiver(status(500), status(500), status(200));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await drain(worker);
    const [row] = await deliveriesOf(h, e.id);
    expect(row.status).toBe("failed");
    await h.call("PATCH", `/v1/webhook-endpoints/${e.id}`, { token: u.liveKey, body: { status: "active" } });

    const path = `/v1/webhook-endpoints/${e.id}/deliveries/${row.id}/retry`;
    const failed = await h.call("POST", path, { token: u.liveKey });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: "failed", next_attempt_at: null });
    expect(failed.body.attempts).toHaveLength(2);
    await drain(worker);
    expect(rx.hits).toHaveLength(2);

    const ok = await h.call("POST", path, { token: u.liveKey });
    expect(ok.body).toMatchObject({ status: "succeeded" });
    expect(ok.body.attempts.map((a: any) => a.status)).toEqual([500, 500, 200]);
  });

  test("the log is paginated, newest first, scoped to the endpoint, workspace and scopes", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({}, clock);
    const other = await signUp(h);
    const rx = receiver();
    const e = await endpoint(rx.url());
    const e2 = await endpoint(rx.url("/2"));
    for (const id of ["run_1", "run_2", "run_3"]) {
      await emit(h.ctx, u.workspaceId, "run.succeeded", run(id));
      await drain(worker);
      clock.advance(1000);
    }
    const base = `/v1/webhook-endpoints/${e.id}/deliveries`;
    const page1 = await h.call("GET", `${base}?limit=2`, { token: u.liveKey });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await h.call("GET", `${base}?limit=2&cursor=${page1.body.next_cursor}`, { token: u.liveKey });
    expect(page2.body.next_cursor).toBeNull();
    const ids = [...page1.body.data, ...page2.body.data].map((d: any) => d.id);
    const created = [...page1.body.data, ...page2.body.data].map((d: any) => d.created_at);
    expect(new Set(ids).size).toBe(3);
    expect([...created].sort().reverse()).toEqual(created);

    const someone = page1.body.data[0].id;
    expect((await h.call("GET", base, { token: other.liveKey })).status).toBe(404);
    expect((await h.call("POST", `${base}/${someone}/retry`, { token: other.liveKey })).status).toBe(404);
    // the delivery belongs to e, not e2
    expect((await h.call("POST", `/v1/webhook-endpoints/${e2.id}/deliveries/${someone}/retry`, { token: u.liveKey })).status).toBe(404);
    const ro = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "ro", scopes: ["webhooks:read"] } })).body.token;
    expect((await h.call("GET", base, { token: ro })).status).toBe(200);
    expect((await h.call("POST", `${base}/${someone}/retry`, { token: ro })).status).toBe(403);
  });
});

describe("operator restrictions", () => {
  test("ASSAY_WEBHOOK_ALLOWED_NETWORKS: an address outside is refused at creation; one inside is delivered to", async () => {
    const { h, u, worker, endpoint } = await setup({ ASSAY_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8, fd00::/8" });
    const inside = receiver();
    await endpoint(inside.url());
    const outside = await h.call("POST", "/v1/webhook-endpoints", { token: u.liveKey, body: { url: "http://10.1.2.3/hook" } });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatchObject({ code: "validation_error", param: "url" });
    expect(outside.body.error.message).toContain("ASSAY_WEBHOOK_ALLOWED_NETWORKS");
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await drain(worker);
    expect(inside.hits).toHaveLength(1);
  });

  test("a name resolving outside the allowed networks is not called; the attempt says why", async () => {
    const { h, u, endpoint } = await setup({ ASSAY_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" });
    const e = await endpoint("http://receiver.test:9/hook");
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await dispatchEvents(h.ctx.db, h.ctx.clock);
    const claimed = await claimDelivery(h.ctx.db, h.ctx.clock, h.ctx.config);
    const [row] = await h.ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, e.id)).limit(1);
    const resolve = async () => [{ address: "10.9.9.9", family: 4 }];
    const outcome = await sendAttempt(h.ctx.clock, h.ctx.config, row as NonNullable<typeof row>, claimed as NonNullable<typeof claimed>, resolve);
    expect(outcome.ok).toBe(false);
    expect(outcome.attempt.error).toContain("ASSAY_WEBHOOK_ALLOWED_NETWORKS");
  });

  test("a bad network in the setting stops the server with one line naming it", async () => {
    await expect(testConfig({ ASSAY_WEBHOOK_ALLOWED_NETWORKS: "10.0.0.0/33" })).rejects.toThrow(/ASSAY_WEBHOOK_ALLOWED_NETWORKS/);
    await expect(testConfig({ ASSAY_WEBHOOK_ALLOWED_NETWORKS: "intranet" })).rejects.toThrow(/ASSAY_WEBHOOK_ALLOWED_NETWORKS/);
  });

  test("manual retries are limited per endpoint: the 11th in a minute is 429 with Retry-After", async () => {
    const clock = new TestClock();
    const { h, u, worker, endpoint } = await setup({}, clock);
    const rx = receiver(status(500));
    const e = await endpoint(rx.url());
    await emit(h.ctx, u.workspaceId, "run.succeeded", run());
    await worker.tick();
    const [row] = await deliveriesOf(h, e.id);
    const retry = () => h.call("POST", `/v1/webhook-endpoints/${e.id}/deliveries/${row.id}/retry`, { token: u.liveKey });
    for (let i = 0; i < 10; i++) expect((await retry()).status).toBe(200);
    const over = await retry();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(60_000);
    expect((await retry()).status).toBe(200);
  });
});
