// Wire format of the signed object endpoints: the query a signed URL carries and the upload's answer.
import { t } from "elysia";
import { JsonInteger } from "../../http/body";

/** Every parameter is optional here so a missing one is a 403 signature_invalid, not a 400. */
export const SignedQuery = t.Object({
  expires: t.Optional(t.String({ description: "Expiry, unix seconds" })),
  sig: t.Optional(t.String({ description: "HMAC-SHA256 over the method, key and the other parameters" })),
  ct: t.Optional(t.String({ description: "Declared Content-Type (upload) or served Content-Type (download)" })),
  max: t.Optional(t.String({ description: "Upload: the most bytes accepted" })),
  fn: t.Optional(t.String({ description: "Download: the file name offered to the client" })),
});

export const UploadResult = t.Object(
  {
    key: t.String({ description: "The object key the bytes were stored under" }),
    size_bytes: JsonInteger({ description: "Bytes received and stored" }),
  },
  { title: "UploadResult" },
);
