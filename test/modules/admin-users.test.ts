// GET and POST /v1/admin/users: an admin creates users with a role (each with a workspace and the initial credits)
// and lists them, newest first, paged; members and API keys cannot.
import { expect, test } from "bun:test";
import { harness, signUp } from "../helpers";

test("an admin creates a member and an admin, who can log in; the list pages newest first", async () => {
  const h = await harness({ ASSAY_INITIAL_CREDITS: "7" });
  const admin = await signUp(h, undefined, "admin");
  const made = await h.call("POST", "/v1/admin/users", {
    token: admin.session,
    body: { email: "Teacher@Example.org", password: "a long passphrase" },
  });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ object: "user", email: "teacher@example.org", role: "member" });
  expect(made.body.workspace_id).not.toBe(admin.workspaceId);
  const boss = await h.call("POST", "/v1/admin/users", {
    token: admin.session,
    body: { email: "boss@example.org", password: "another passphrase", role: "admin" },
  });
  expect(boss.body.role).toBe("admin");

  const login = await h.call("POST", "/v1/auth/login", { body: { email: "teacher@example.org", password: "a long passphrase" } });
  expect(login.status).toBe(200);
  expect((await h.call("GET", "/v1/usage/balance", { token: login.body.token })).body.pro_credits).toBe(7);

  const page1 = await h.call("GET", "/v1/admin/users?limit=2", { token: admin.session });
  expect(page1.body.data.map((u: { email: string }) => u.email)).toEqual(["boss@example.org", "teacher@example.org"]);
  const page2 = await h.call("GET", `/v1/admin/users?limit=2&cursor=${page1.body.next_cursor}`, { token: admin.session });
  expect(page2.body.data.map((u: { id: string }) => u.id)).toEqual([admin.user.id]);
  expect(page2.body.next_cursor).toBeNull();
});

test("a taken email is 409, a short password 400; members and API keys are refused", async () => {
  const h = await harness();
  const admin = await signUp(h, "root@example.org", "admin");
  const taken = await h.call("POST", "/v1/admin/users", { token: admin.session, body: { email: "root@example.org", password: "long enough pass" } });
  expect(taken.status).toBe(409);
  const short = await h.call("POST", "/v1/admin/users", { token: admin.session, body: { email: "x@example.org", password: "short" } });
  expect(short.status).toBe(400);
  expect(short.body.error.param).toBe("password");
  const member = await signUp(h);
  expect((await h.call("GET", "/v1/admin/users", { token: member.session })).status).toBe(403);
  expect(
    (await h.call("POST", "/v1/admin/users", { token: admin.liveKey, body: { email: "y@example.org", password: "long enough pass" } })).status,
  ).toBe(401);
});

test("PATCH /v1/admin/users/:id changes a role at once; the last administrator stays one", async () => {
  const h = await harness();
  const admin = await signUp(h, undefined, "admin");
  const member = await signUp(h);
  const promoted = await h.call("PATCH", `/v1/admin/users/${member.user.id}`, { token: admin.session, body: { role: "admin" } });
  expect(promoted.status).toBe(200);
  expect(promoted.body.role).toBe("admin");
  expect((await h.call("GET", "/v1/admin/users", { token: member.session })).status).toBe(200); // the session sees it at once
  expect((await h.call("PATCH", `/v1/admin/users/${member.user.id}`, { token: admin.session, body: { role: "member" } })).body.role).toBe("member");
  expect((await h.call("GET", "/v1/admin/users", { token: member.session })).status).toBe(403);
  const last = await h.call("PATCH", `/v1/admin/users/${admin.user.id}`, { token: admin.session, body: { role: "member" } });
  expect(last.status).toBe(409);
  expect(last.body.error.code).toBe("invalid_state");
  expect((await h.call("PATCH", "/v1/admin/users/usr_nobody", { token: admin.session, body: { role: "admin" } })).status).toBe(404);
  expect((await h.call("PATCH", `/v1/admin/users/${member.user.id}`, { token: admin.session, body: { role: "owner" } })).status).toBe(400);
});
