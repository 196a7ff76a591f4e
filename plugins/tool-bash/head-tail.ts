/**
 * Bounded capture of a command's output: keeps the first and the last characters and counts
 * what falls between, so a command printing gigabytes costs a fixed amount of memory.
 */
export class HeadTailBuffer {
  readonly #headMax: number;
  readonly #tailMax: number;
  #head = "";
  #tail = "";
  #total = 0;

  /** Keep at most `max` characters: half from the start, half from the end. */
  constructor(readonly max: number) {
    this.#headMax = Math.ceil(max / 2);
    this.#tailMax = max - this.#headMax;
  }

  /** Append a chunk. */
  push(chunk: string): void {
    this.#total += chunk.length;
    if (this.#head.length < this.#headMax) {
      const room = this.#headMax - this.#head.length;
      this.#head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === "") return;
    this.#tail += chunk;
    // Trim lazily (at twice the size) so a stream of small chunks is not quadratic.
    if (this.#tail.length > this.#tailMax * 2) this.#tail = this.#tail.slice(-this.#tailMax);
  }

  /** Characters received in all. */
  get total(): number {
    return this.#total;
  }

  /** The output, with a marker in place of the middle when it was longer than `max`. */
  text(): { text: string; cut: number } {
    if (this.#total <= this.max) return { text: this.#head + this.#tail, cut: 0 };
    const cut = this.#total - this.#headMax - this.#tailMax;
    const marker =
      `\n\n[… ${cut} characters cut from the middle of the output (${this.#total} in all). ` +
      "To see all of it, redirect the output to a file and look at the part you need. …]\n\n";
    return { text: this.#head + marker + this.#tail.slice(-this.#tailMax), cut };
  }
}
