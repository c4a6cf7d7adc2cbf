// The JIT policy of a compiled Assay. The executable starts with JavaScriptCore's tier-up thresholds ×1000
// (scripts/compile.ts): the code a start runs once stays in the interpreter instead of becoming machine code kept for
// good, and so does the little an idle server runs (its workers polling for work, health checks). Idle, it keeps
// about 54 MB instead of 60–65. The first real work restores the normal policy for good: any request other than a
// probe (health, metrics), work a background worker claimed, or any command other than `serve`.
// Running from source, the policy is normal from the start and restoring it changes nothing.

const PROBES = ["/v1/health", "/metrics"];

export class JitPolicy {
  private restored = false;

  // A Bun older than 1.4.5 (running from source with another bun) lacks the call, and its policy is normal anyway.
  constructor(private readonly setScale: (scale: number) => void = (scale) => Bun.unsafe.setJITPolicy?.(scale)) {}

  restore(): void {
    if (this.restored) return;
    this.restored = true;
    this.setScale(1);
  }

  /** A request arrived: the first one that is not a probe restores the normal policy. */
  noteRequest(request: Request): void {
    if (this.restored) return;
    const url = request.url;
    if (!PROBES.some((probe) => url.endsWith(probe))) this.restore();
  }
}

/** The process's one policy. */
export const jit = new JitPolicy();
