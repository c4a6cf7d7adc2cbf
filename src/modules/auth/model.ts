// Wire format of login, logout and /auth/me.
import { t } from "elysia";
import { RequestBody } from "../../http/body";

const User = t.Object({ id: t.String(), email: t.String(), role: t.Union([t.Literal("admin"), t.Literal("member")]) }, { title: "User" });

export const LoginBody = RequestBody({
  email: t.String({ minLength: 1, maxLength: 320, examples: ["admin@example.com"] }),
  password: t.String({ minLength: 1, maxLength: 1024, examples: ["correct horse battery staple"] }),
});

export const SetupBody = RequestBody({
  token: t.String({ minLength: 1, maxLength: 200, description: "The setup_… token of the link the server printed at its first start" }),
  email: t.String({ minLength: 1, maxLength: 320, examples: ["admin@example.com"] }),
  password: t.String({ minLength: 8, maxLength: 1024, examples: ["correct horse battery staple"] }),
});

export const Session = t.Object(
  {
    token: t.String({ description: "sess_… bearer token, valid 24 hours" }),
    token_type: t.Literal("Bearer"),
    expires_at: t.String({ format: "date-time" }),
    user: User,
  },
  { title: "Session" },
);

export const Me = t.Object(
  {
    user: User,
    workspace: t.Object({ id: t.String(), name: t.String() }),
    auth: t.Object({ kind: t.Union([t.Literal("session"), t.Literal("key")]), key_id: t.Optional(t.String()), mode: t.String() }),
  },
  { title: "Me" },
);
