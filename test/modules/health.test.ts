// GET /v1/health: no auth, real checks.
import { expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { closeDb } from "../../src/db/client";
import { harness } from "../helpers";

test("healthy: database answers and the data dir is writable", async () => {
  const h = await harness();
  const r = await h.call("GET", "/v1/health");
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: "ok", service: "assay", checks: { database: { status: "ok" }, data_dir: { status: "ok" } } });
  expect(r.body.version).toMatch(/^\d+\.\d+\.\d+/);
});

test("degraded when the data dir is not writable, without leaking the path", async () => {
  if (process.getuid?.() === 0) {
    // root ignores directory permissions; make the dir unusable another way: replace it by a read-only mount is not possible here,
    // so point the check at a path under a regular file.
    const h = await harness();
    (h.ctx.config as { dataDir: string }).dataDir = `${h.dir}/secret/file-not-dir`;
    await Bun.write(`${h.dir}/secret`, "x");
    const r = await h.call("GET", "/v1/health");
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("degraded");
    expect(r.body.checks.data_dir.status).toBe("fail");
    expect(r.text).not.toContain(h.dir);
    return;
  }
  const h = await harness();
  chmodSync(h.dir, 0o500);
  const r = await h.call("GET", "/v1/health");
  chmodSync(h.dir, 0o700);
  expect(r.body.status).toBe("degraded");
  expect(r.text).not.toContain(h.dir);
});

test("degraded when the database cannot answer", async () => {
  const h = await harness();
  await closeDb(h.ctx.db);
  const r = await h.call("GET", "/v1/health");
  expect(r.body.status).toBe("degraded");
  expect(r.body.checks.database.status).toBe("fail");
});
