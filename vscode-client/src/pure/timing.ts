// Small timing helpers without `vscode`: a per-key debouncer and a queue that serializes restarts.

type Timer = ReturnType<typeof setTimeout>;

/** Runs `fn(key)` once `delayMs` after the last `trigger(key)` for that key. */
export class KeyedDebouncer<K> {
  private readonly timers = new Map<K, Timer>();

  constructor(private readonly delayMs: number, private readonly fn: (key: K) => void) {}

  trigger(key: K): void {
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      this.fn(key);
    }, this.delayMs));
  }

  get pending(): number {
    return this.timers.size;
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/**
 * Never two runs at once: a request while a run is in progress queues exactly one more run
 * (however many requests arrive), which starts when the current one ends. Every caller's promise
 * settles when a run that started after its request has finished.
 */
export class CoalescingQueue {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly task: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) {
      this.running = this.start();
      return this.running;
    }
    this.queued = this.running.catch(() => undefined).then(() => {
      this.queued = undefined;
      this.running = this.start();
      return this.running;
    });
    return this.queued;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  private start(): Promise<void> {
    const run: Promise<void> = Promise.resolve()
      .then(() => this.task())
      .finally(() => {
        if (this.running === run) this.running = undefined;
      });
    return run;
  }
}
