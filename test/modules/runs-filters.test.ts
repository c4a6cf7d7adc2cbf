// GET /v1/runs?created_after=&created_before=: runs by when they were created (an Assay extension), with paging.
import { expect, test } from "bun:test";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { harness, signUp, TestClock } from "../helpers";

test("created_after (inclusive) and created_before (exclusive) select runs by creation time; bad values name the field", async () => {
  const clock = new TestClock();
  const h = await harness({}, clock);
  const u = await signUp(h);
  const wf = await h.call("POST", "/v1/workflows", { token: u.testKey, body: { product_code: "general", name: "w" } });
  const doc = await createDocumentFromBytes(h.ctx, { workspaceId: u.workspaceId, filename: "a.txt", bytes: new TextEncoder().encode("text") });
  const made: { id: string; at: string }[] = [];
  for (let day = 0; day < 3; day++) {
    const r = await h.call("POST", `/v1/workflows/${wf.body.id}/runs`, { token: u.testKey, body: { input_documents: [doc.id] } });
    expect(r.status).toBe(202);
    made.push({ id: r.body.id, at: r.body.created_at });
    clock.advance(24 * 3600_000);
  }
  const ids = async (query: string) => {
    const r = await h.call("GET", `/v1/runs?${query}`, { token: u.testKey });
    expect(r.status).toBe(200);
    return r.body.data.map((x: { id: string }) => x.id);
  };
  expect(await ids(`created_after=${encodeURIComponent(made[1].at)}`)).toEqual([made[2].id, made[1].id]);
  expect(await ids(`created_before=${encodeURIComponent(made[1].at)}`)).toEqual([made[0].id]);
  expect(await ids(`created_after=${made[0].at.slice(0, 10)}&created_before=${made[2].at.slice(0, 10)}`)).toEqual([made[1].id, made[0].id]);
  // With paging: the filter holds on the next page too.
  const first = await h.call("GET", `/v1/runs?limit=1&created_after=${made[0].at.slice(0, 10)}`, { token: u.testKey });
  const second = await h.call("GET", `/v1/runs?limit=1&created_after=${made[0].at.slice(0, 10)}&cursor=${first.body.next_cursor}`, {
    token: u.testKey,
  });
  expect([first.body.data[0].id, second.body.data[0].id]).toEqual([made[2].id, made[1].id]);
  for (const [param, value] of [
    ["created_after", "yesterday"],
    ["created_before", "2026-13-45"],
    ["created_after", "2026-11-01T10:00"],
  ]) {
    const bad = await h.call("GET", `/v1/runs?${param}=${value}`, { token: u.testKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe(param);
  }
});
