/**
 * A shared allowance of bytes that request bodies may hold in memory at once.
 * A body reserves its whole size (its Content-Length, or the body limit when
 * it is chunked) before a byte is read, and gives it back when done; bodies
 * that do not fit wait in order, unread, so TCP pushes back on the senders.
 * Reserving up front means no half-read body ever waits for another, so it
 * cannot deadlock. With it, a flood of deliveries costs at most `capacity`
 * bytes of buffered bodies, however many connections are open.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Resolves when `bytes` (capped at the capacity) are reserved; returns the release function. */
  async reserve(bytes: number): Promise<() => void> {
    const amount = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && this.used + amount <= this.capacity) {
      this.used += amount;
    } else {
      await new Promise<void>((grant) => this.waiting.push({ bytes: amount, grant }));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= amount;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.grant();
    }
  }
}
