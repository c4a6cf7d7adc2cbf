// Wire format of API keys: ApiKeySummary, SecretApiKey and the create body (spec §2, CONTRACT.md "API keys").
import { t } from "elysia";
import { JsonInteger, RequestBody } from "../../http/body";
import { SCOPES } from "../../http/caller";

const Mode = t.Union([t.Literal("live"), t.Literal("test")]);
const NullableDate = t.Union([t.String({ format: "date-time" }), t.Null()]);

export const ApiKeySummary = t.Object(
  {
    public_id: t.String({ examples: ["key_8fJ2kLm0Qa9ZxY3wVb7NcD1e"] }),
    name: t.String(),
    mode: Mode,
    key_prefix: t.String({ examples: ["svc_live_4Fq"] }),
    last4: t.String(),
    scopes: t.Array(t.String()),
    status: t.Union([t.Literal("active"), t.Literal("revoked")]),
    rate_limit_rpm: t.Union([JsonInteger(), t.Null()]),
    expires_at: NullableDate,
    last_used_at: NullableDate,
    created_at: t.String({ format: "date-time" }),
    revoked_at: NullableDate,
  },
  { title: "ApiKeySummary" },
);

export const SecretApiKey = t.Object(
  {
    public_id: t.String(),
    token: t.String({ description: "The full key. Returned only here, once.", examples: ["svc_live_4FqP0a…"] }),
    name: t.String(),
    mode: Mode,
    scopes: t.Array(t.String()),
    last4: t.String(),
    created_at: t.String({ format: "date-time" }),
    warning: t.String(),
    key_prefix: t.String(),
    rate_limit_rpm: t.Union([JsonInteger(), t.Null()]),
    expires_at: NullableDate,
  },
  { title: "SecretApiKey" },
);

export const CreateKeyBody = RequestBody({
  name: t.String({ minLength: 1, maxLength: 100, examples: ["CI pipeline"] }),
  mode: t.Optional(Mode),
  scopes: t.Optional(t.Array(t.String({ examples: [...SCOPES] }), { description: `Omitted = all: ${SCOPES.join(", ")}` })),
  rate_limit_rpm: t.Optional(t.Union([JsonInteger({ minimum: 1, maximum: 100000 }), t.Null()])),
  expires_at: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()])),
});
