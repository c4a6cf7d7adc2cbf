// Named wake-ups for code that waits in this process for something to happen (a worker for new work, a sync request
// for its run): wait(name, ms) resolves on wake(name) or after ms, whichever comes first.
export class Waiters {
  private readonly sleepers = new Map<string, Set<() => void>>();

  wait(name: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.sleepers.get(name) ?? new Set();
      this.sleepers.set(name, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.sleepers.get(name) === set) this.sleepers.delete(name);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      set.add(done);
    });
  }

  wake(name: string): void {
    for (const done of [...(this.sleepers.get(name) ?? [])]) done();
  }

  wakeAll(): void {
    for (const name of [...this.sleepers.keys()]) this.wake(name);
  }
}
