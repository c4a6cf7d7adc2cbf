// The pagination helper: signed cursors, newest first, tamper detection.
import { expect, test } from "bun:test";
import { ApiError } from "../../src/http/errors";
import { decodeCursor, encodeCursor, toPage } from "../../src/http/pagination";

const secret = "x".repeat(40);

test("a cursor round-trips and is opaque", () => {
  const c = encodeCursor(secret, { c: 1700000000000, i: "run_abc" });
  expect(c).not.toContain("run_abc");
  expect(decodeCursor(secret, c)).toEqual({ c: 1700000000000, i: "run_abc" });
});

test("a tampered or foreign cursor is a 400 validation_error on cursor", () => {
  const c = encodeCursor(secret, { c: 1, i: "run_a" });
  const forged = `${Buffer.from(JSON.stringify({ c: 2, i: "run_z" })).toString("base64url")}.${c.split(".")[1]}`;
  for (const bad of [forged, `${c}x`, "garbage", "", encodeCursor("y".repeat(40), { c: 1, i: "run_a" })]) {
    try {
      decodeCursor(secret, bad);
      throw new Error("accepted");
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).param).toBe("cursor");
      expect((e as ApiError).status).toBe(400);
    }
  }
});

test("toPage returns limit items and a cursor only when there are more", () => {
  const rows = Array.from({ length: 3 }, (_, i) => ({ id: `x_${i}`, createdAt: 100 - i }));
  const full = toPage(secret, rows, 2, (r) => r.id);
  expect(full.data).toEqual(["x_0", "x_1"]);
  expect(decodeCursor(secret, full.next_cursor!)).toEqual({ c: 99, i: "x_1" });
  expect(toPage(secret, rows.slice(0, 2), 2, (r) => r.id).next_cursor).toBeNull();
});
