// Identity: login, logout, /auth/me, admin bootstrap, the user CLI's service, and OIDC JWTs against a real JWKS server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { users } from "../../src/db/schema";
import { ensureAdmin } from "../../src/modules/auth/service";
import { LoginThrottle } from "../../src/modules/auth/throttle";
import { getBalance } from "../../src/modules/usage/service";
import { type Harness, harness, scenarios, signUp, TestClock } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  h = await harness({ ASSAY_ADMIN_EMAIL: "boss@example.com", ASSAY_ADMIN_PASSWORD: "admin-password" });
  await ensureAdmin(h.ctx.db, h.ctx.clock, h.ctx.config);
  u = await signUp(h, "Member@Example.com");
});

describe("login", () => {
  scenarios(
    () => h,
    [
      {
        name: "the bootstrap admin logs in",
        method: "POST",
        path: "/v1/auth/login",
        body: { email: "boss@example.com", password: "admin-password" },
        status: 200,
        expect: { token_type: "Bearer", user: { email: "boss@example.com", role: "admin" } },
        check: ({ body }) => {
          expect(body.token).toMatch(/^sess_/);
          expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
        },
      },
      {
        name: "emails are case-insensitive",
        method: "POST",
        path: "/v1/auth/login",
        body: { email: "member@example.com", password: "correct horse battery" },
        status: 200,
      },
      {
        name: "wrong password",
        method: "POST",
        path: "/v1/auth/login",
        body: { email: "boss@example.com", password: "nope-nope" },
        status: 401,
        expect: { error: { code: "invalid_credentials", message: "Email or password is incorrect" } },
      },
      {
        name: "unknown email has the same answer",
        method: "POST",
        path: "/v1/auth/login",
        body: { email: "ghost@example.com", password: "nope-nope" },
        status: 401,
        expect: { error: { code: "invalid_credentials", message: "Email or password is incorrect" } },
      },
      {
        name: "missing password",
        method: "POST",
        path: "/v1/auth/login",
        body: { email: "boss@example.com" },
        status: 400,
        expect: { error: { code: "validation_error", param: "password" } },
      },
    ],
  );
});

describe("login throttling", () => {
  const attempt = (hc: Harness, email: string, password: string) => hc.call("POST", "/v1/auth/login", { body: { email, password } });

  test("5 failures are free; then each earns a growing delay, during which even the right password is 429", async () => {
    const clock = new TestClock();
    const hc = await harness({}, clock);
    const v = await signUp(hc);
    for (let i = 0; i < 6; i++) expect((await attempt(hc, v.email, "wrong-password")).status).toBe(401);
    const blocked = await attempt(hc, v.email, v.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe("rate_limited");
    expect(blocked.headers.get("retry-after")).toBe("1");
    clock.advance(1000);
    expect((await attempt(hc, v.email, "wrong-password")).status).toBe(401); // the 7th failure: 2 s
    expect((await attempt(hc, v.email, v.password)).headers.get("retry-after")).toBe("2");
    clock.advance(2000);
    expect((await attempt(hc, v.email, v.password)).status).toBe(200);
    // A success clears the email (the client's address keeps its own count): the next mistake is answered, not delayed.
    expect((await attempt(hc, v.email, "wrong-password")).status).toBe(401);
  }, 30_000);

  test("100 simultaneous wrong passwords for one email: the count runs before the check, so almost all are 429", async () => {
    const hc = await harness();
    const v = await signUp(hc);
    const replies = await Promise.all(Array.from({ length: 100 }, () => attempt(hc, v.email, "wrong-password")));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(94);
  }, 30_000);

  test("nobody can lock an owner out for long: an email's delay is capped at a minute", async () => {
    const clock = new TestClock();
    const hc = await harness({}, clock);
    const v = await signUp(hc);
    for (let i = 0; i < 40; i++) {
      const r = await attempt(hc, v.email, "wrong-password");
      if (r.status === 429) clock.advance(Number(r.headers.get("retry-after")) * 1000);
    }
    const owner = await attempt(hc, v.email, v.password);
    if (owner.status === 429) {
      expect(Number(owner.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      clock.advance(60_000);
    }
    expect((await attempt(hc, v.email, v.password)).status).toBe(200);
  }, 60_000);

  test("the table stays bounded, and a flood of other emails never resets a victim's delay", () => {
    const throttle = new LoginThrottle();
    const now = Date.parse("2026-11-22T12:00:00Z");
    for (let i = 0; i < 6; i++) throttle.begin("victim@example.com", "10.0.0.1", now);
    const refused = () => {
      try {
        throttle.begin("victim@example.com", "10.0.0.1", now);
        return null;
      } catch (e) {
        return (e as { status: number }).status;
      }
    };
    expect(refused()).toBe(429);
    let full = 0;
    for (let i = 0; i < 60_000; i++) {
      try {
        throttle.begin(`flood${i}@example.com`, `10.1.${i >> 8}.${i & 255}`, now);
      } catch {
        full++;
      }
    }
    expect(full).toBeGreaterThan(0); // past the bound, new keys are refused rather than old ones evicted
    expect(refused()).toBe(429);
  });
});

describe("session rate limit", () => {
  test("a session is limited like a key without its own limit (ASSAY_DEFAULT_RPM), with the same headers", async () => {
    const clock = new TestClock();
    const hr = await harness({ ASSAY_DEFAULT_RPM: "3" }, clock);
    const v = await signUp(hr);
    const me = () => hr.call("GET", "/v1/auth/me", { token: v.session });
    // signUp used the session for two key creations already this minute.
    const third = await me();
    expect(third.status).toBe(200);
    expect(third.headers.get("x-ratelimit-limit")).toBe("3");
    expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
    const over = await me();
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(60_000);
    expect((await me()).status).toBe(200);
  });
});

describe("me and logout", () => {
  test("/auth/me answers for a session and for a key, with the same workspace", async () => {
    const bySession = await h.call("GET", "/v1/auth/me", { token: u.session });
    expect(bySession.status).toBe(200);
    expect(bySession.body).toMatchObject({
      user: { email: "member@example.com", role: "member" },
      workspace: { id: u.workspaceId },
      auth: { kind: "session" },
    });
    const byKey = await h.call("GET", "/v1/auth/me", { token: u.testKey });
    expect(byKey.body).toMatchObject({ workspace: { id: u.workspaceId }, auth: { kind: "key", mode: "test" } });
  });

  test("logout revokes the presented session only", async () => {
    const second = await h.call("POST", "/v1/auth/login", { body: { email: u.email, password: u.password } });
    const out = await h.call("POST", "/v1/auth/logout", { token: second.body.token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ revoked: true });
    expect((await h.call("GET", "/v1/auth/me", { token: second.body.token })).status).toBe(401);
    expect((await h.call("GET", "/v1/auth/me", { token: u.session })).status).toBe(200);
  });

  test("sessions expire after 24 hours", async () => {
    const clock = new TestClock();
    const hc = await harness({}, clock);
    const v = await signUp(hc);
    clock.advance(24 * 3600_000 + 1);
    const r = await hc.call("GET", "/v1/auth/me", { token: v.session });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("unauthenticated");
  });

  test("a new user gets a workspace of its own with ASSAY_INITIAL_CREDITS", async () => {
    const hc = await harness({ ASSAY_INITIAL_CREDITS: "250" });
    const v = await signUp(hc);
    const w = await signUp(hc);
    expect(v.workspaceId).not.toBe(w.workspaceId);
    expect(await getBalance(hc.ctx.db, v.workspaceId)).toEqual({ pro_credits: 250, bonus_pro: 0, regular_pro: 250, basic_credits_excluded: true });
  });

  test("passwords are stored as argon2id hashes", async () => {
    const [row] = await h.ctx.db.select().from(users).where(eq(users.email, "boss@example.com"));
    expect(row?.passwordHash).toStartWith("$argon2id$");
  });

  test("ensureAdmin leaves an existing user as it is", async () => {
    await ensureAdmin(h.ctx.db, h.ctx.clock, h.ctx.config);
    expect(await h.ctx.db.select().from(users).where(eq(users.email, "boss@example.com"))).toHaveLength(1);
  });
});

describe("OIDC", () => {
  let jwks: ReturnType<typeof Bun.serve>;
  let privateKey: CryptoKey;
  let otherKey: CryptoKey;
  let ho: Harness;
  let issuer: string;

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair("RS256")).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    jwks = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const url = new URL(req.url);
        if (url.pathname === "/.well-known/openid-configuration") return Response.json({ issuer, jwks_uri: `${issuer}/jwks` });
        if (url.pathname === "/jwks") return Response.json({ keys: [jwk] });
        return new Response("nope", { status: 404 });
      },
    });
    issuer = `http://127.0.0.1:${jwks.port}`;
    ho = await harness({ ASSAY_OIDC_ISSUER: issuer, ASSAY_OIDC_AUDIENCE: "assay" });
  });
  afterAll(async () => jwks.stop(true));

  const sign = (claims: Record<string, unknown>, key = privateKey, exp = "5m") =>
    new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuedAt().setExpirationTime(exp).sign(key);

  test("a valid IdP token is a session; its user is created on first use, once", async () => {
    const token = await sign({ sub: "idp-user-1", email: "ida@example.com", email_verified: true, iss: issuer, aud: "assay" });
    const me = await ho.call("GET", "/v1/auth/me", { token });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe("ida@example.com");
    const again = await ho.call("GET", "/v1/auth/me", { token });
    expect(again.body.workspace.id).toBe(me.body.workspace.id);
    const keys = await ho.call("POST", "/v1/keys", { token, body: { name: "from sso" } });
    expect(keys.status).toBe(201);
  });

  test("an unverified email is never trusted: the user gets a placeholder address and no local account is taken over", async () => {
    const local = await signUp(ho, "victim@example.com");
    const token = await sign({ sub: "idp-attacker", email: "victim@example.com", iss: issuer, aud: "assay" });
    const me = await ho.call("GET", "/v1/auth/me", { token });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toEndWith("@oidc.invalid");
    expect(me.body.workspace.id).not.toBe(local.workspaceId);
    const fresh = await sign({ sub: "idp-unverified", email: "nobody-yet@example.com", email_verified: false, iss: issuer, aud: "assay" });
    expect((await ho.call("GET", "/v1/auth/me", { token: fresh })).body.user.email).toEndWith("@oidc.invalid");
  });

  test("a verified email links the existing local account to the IdP subject", async () => {
    const local = await signUp(ho, "linda@example.com");
    const token = await sign({ sub: "idp-linda", email: "linda@example.com", email_verified: true, iss: issuer, aud: "assay" });
    const me = await ho.call("GET", "/v1/auth/me", { token });
    expect(me.body.user.id).toBe(local.user.id);
    expect(me.body.workspace.id).toBe(local.workspaceId);
    // Once linked, the subject finds the account again; another subject with the same email does not take it.
    expect((await ho.call("GET", "/v1/auth/me", { token })).body.user.id).toBe(local.user.id);
    const other = await sign({ sub: "idp-linda-2", email: "linda@example.com", email_verified: true, iss: issuer, aud: "assay" });
    expect((await ho.call("GET", "/v1/auth/me", { token: other })).body.user.id).not.toBe(local.user.id);
  });

  for (const [name, make] of [
    ["wrong audience", () => sign({ sub: "x", iss: issuer, aud: "other" })],
    ["wrong issuer", () => sign({ sub: "x", iss: "http://evil.example", aud: "assay" })],
    ["expired", () => sign({ sub: "x", iss: issuer, aud: "assay" }, privateKey, "-1m")],
    ["signed by another key", () => sign({ sub: "x", iss: issuer, aud: "assay" }, otherKey)],
  ] as const) {
    test(`rejects a token with ${name}`, async () => {
      const r = await ho.call("GET", "/v1/auth/me", { token: await make() });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("unauthenticated");
    });
  }

  test("JWTs are not accepted when OIDC is not configured", async () => {
    const token = await sign({ sub: "x", iss: issuer, aud: "assay" });
    expect((await h.call("GET", "/v1/auth/me", { token })).status).toBe(401);
  });
});
