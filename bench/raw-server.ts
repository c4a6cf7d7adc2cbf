// Baseline for bench/http.ts: a raw Bun.serve JSON endpoint, the fastest this runtime answers.
const body = JSON.stringify({ data: [{ code: "general", name: "General evaluation", status: "active" }] });
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  routes: { "/v1/products": () => new Response(body, { headers: { "content-type": "application/json" } }) },
  fetch: () => new Response("not found", { status: 404 }),
});
console.log(`PORT ${server.port}`);
