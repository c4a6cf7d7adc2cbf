// The JIT policy of a compiled Assay (src/lib/jit.ts): an idle server answering probes keeps its start-up policy;
// the first real request restores the normal one, once.
import { expect, test } from "bun:test";
import { JitPolicy } from "../../src/lib/jit";

const request = (path: string) => new Request(`http://127.0.0.1:8080${path}`);

test("health and metrics probes leave the start-up policy; the first API request restores the normal one, once", () => {
  const scales: number[] = [];
  const policy = new JitPolicy((scale) => scales.push(scale));
  policy.noteRequest(request("/v1/health"));
  policy.noteRequest(request("/metrics"));
  expect(scales).toEqual([]);
  policy.noteRequest(request("/v1/products"));
  policy.noteRequest(request("/v1/runs"));
  policy.restore();
  expect(scales).toEqual([1]);
});

test("a request for the console or the docs is real use too", () => {
  const scales: number[] = [];
  const policy = new JitPolicy((scale) => scales.push(scale));
  policy.noteRequest(request("/console/"));
  expect(scales).toEqual([1]);
});
