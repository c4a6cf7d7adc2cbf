// For starting child servers in tests, benchmarks and the build: a port to give one, and waiting for it to answer.

/** A TCP port that is free right now, chosen by the OS: child servers never collide with each other or with a
 * PostgreSQL test cluster (random picks from a range did). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** Whether `/v1/health` on `port` answers 200 within `timeoutMs`; false at once if `child` (the process serving it) exits. */
export async function untilHealthy(port: number, child?: { exitCode: number | null }, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/v1/health`)).ok) return true;
    } catch {}
    if ((child && child.exitCode !== null) || Date.now() > deadline) return false;
    await Bun.sleep(25);
  }
}
