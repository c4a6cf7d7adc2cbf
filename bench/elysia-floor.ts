// The framework's own ceiling for bench/http.ts: Elysia, configured as Assay's app is, answering each endpoint's very
// bytes from a constant (parsed once, serialised by Elysia per request as Assay's answers are), with a request id
// header. No authentication, no database, no log: what is left of Assay's cost once everything of ours is gone.
//   bun run bench/elysia-floor.ts PORT ENDPOINTS.json   (ENDPOINTS: [{method, path, status, body}])
import { readFileSync } from "node:fs";
import { Elysia } from "elysia";

const [port, file] = process.argv.slice(2);
const endpoints = JSON.parse(readFileSync(file, "utf8")) as { method: "GET" | "POST"; path: string; status: number; body: string }[];
let app = new Elysia({ normalize: true, encodeSchema: false }).onRequest(({ set }) => {
  set.headers["x-request-id"] = "req_00000000000000000000";
});
for (const e of endpoints) {
  const value = JSON.parse(e.body);
  // Ids in the path become parameters, as in Assay's routes (and POSTs to any workflow's runs are answered).
  const path = e.path.split("?")[0].replace(/\/[a-z]+_[A-Za-z0-9]+(?=\/|$)/g, "/:id");
  const handler = ({ set }: { set: { status?: number | string } }) => {
    set.status = e.status;
    return value;
  };
  app = e.method === "GET" ? app.get(path, handler) : app.post(path, handler);
}
app.listen({ port: Number(port), hostname: "127.0.0.1" });
