// Routes: PUT/GET /v1/objects/<key>, the signed upload and download URLs. No bearer auth: the signature is the credential.
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { bodyStream } from "../../http/body";
import { ErrorBody } from "../../http/errors";
import { SignedQuery, UploadResult } from "./model";
import { keyFromPath, receiveUpload, serveDownload } from "./service";

export const objectRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/objects", tags: ["Uploads and downloads"] })
    .put(
      "/*",
      async ({ params, query, request }) =>
        receiveUpload(ctx, {
          key: keyFromPath(params["*"]),
          query,
          contentType: request.headers.get("content-type"),
          contentLength: request.headers.get("content-length"),
          body: bodyStream(request),
        }),
      {
        // "none": Elysia would otherwise buffer the whole body before the handler runs; we stream it to disk.
        parse: "none",
        query: SignedQuery,
        response: { 200: UploadResult, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody },
        detail: {
          summary: "Upload a file to a signed upload_url",
          description:
            "Send the raw bytes (not multipart) with the Content-Type declared when the URL was made (parameters such as charset are ignored) " +
            "and at most the declared size_bytes (50 MB at most). The content is judged later, by the complete call. Answers the stored key and size. " +
            "Errors: 403 signature_invalid or url_expired, 413 payload_too_large, 415 unsupported_media_type.",
        },
      },
    )
    .get("/*", ({ params, query }) => serveDownload(ctx, keyFromPath(params["*"]), query), {
      query: SignedQuery,
      response: {
        200: t.Unknown({ description: "The file's bytes, with the signed Content-Type and a Content-Disposition attachment header" }),
        403: ErrorBody,
        404: ErrorBody,
      },
      detail: { summary: "Download a file from a signed URL (such as a run's output_file.url)" },
    });
