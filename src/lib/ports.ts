// A TCP port that is free right now, chosen by the OS: for starting child servers in tests and benchmarks without
// colliding with each other or with a PostgreSQL test cluster (random picks from a range did).
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}
