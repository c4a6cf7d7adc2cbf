// POST /v1/auth/setup: the first run's one-time link creates the first admin, once, and only while no user exists.
import { expect, test } from "bun:test";
import { SETUP_TTL_MS } from "../../src/modules/auth/setup";
import { harness, TestClock } from "../helpers";

const body = (token: string, email = "first@example.com") => ({ token, email, password: "a long password" });

test("the printed token creates the first admin and answers a session; it works once", async () => {
  const h = await harness();
  const { token } = h.ctx.runtime.setup.open(h.clock.now());
  const r = await h.call("POST", "/v1/auth/setup", { body: body(token) });
  expect(r.status).toBe(201);
  expect(r.body.user).toMatchObject({ email: "first@example.com", role: "admin" });
  const me = await h.call("GET", "/v1/auth/me", { token: r.body.token });
  expect(me.status).toBe(200);
  expect(me.body.user.role).toBe("admin");
  // Spent, and closed for good now that a user exists.
  const again = await h.call("POST", "/v1/auth/setup", { body: body(token, "second@example.com") });
  expect(again.status).toBe(403);
  expect(again.body.error.code).toBe("setup_closed");
  const fresh = h.ctx.runtime.setup.open(h.clock.now());
  expect((await h.call("POST", "/v1/auth/setup", { body: body(fresh.token, "third@example.com") })).body.error.code).toBe("setup_closed");
});

test("a wrong, expired, replaced or absent token is 401 invalid_setup_token and creates nobody", async () => {
  const clock = new TestClock();
  const h = await harness({}, clock);
  const refused = async (token: string) => {
    const r = await h.call("POST", "/v1/auth/setup", { body: body(token) });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("invalid_setup_token");
  };
  await refused("setup_nothing_was_ever_printed"); // no token minted (the server had users at start, say)
  const first = h.ctx.runtime.setup.open(clock.now());
  await refused(`${first.token}x`);
  const second = h.ctx.runtime.setup.open(clock.now()); // a restart prints a new link: the old one is dead
  await refused(first.token);
  clock.advance(SETUP_TTL_MS);
  await refused(second.token);
  const third = h.ctx.runtime.setup.open(clock.now());
  const r = await h.call("POST", "/v1/auth/setup", { body: body(third.token) });
  expect(r.status).toBe(201); // nothing was created by the refusals: setup was still open
});

test("a short password is 400 naming it, and the token survives the mistake", async () => {
  const h = await harness();
  const { token } = h.ctx.runtime.setup.open(h.clock.now());
  const r = await h.call("POST", "/v1/auth/setup", { body: { token, email: "a@example.com", password: "short" } });
  expect(r.status).toBe(400);
  expect(r.body.error.param).toBe("password");
  expect((await h.call("POST", "/v1/auth/setup", { body: body(token) })).status).toBe(201);
});
