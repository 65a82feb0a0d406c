/**
 * A text progress bar: redrawn in place on a terminal, plain lines (one per phase and per tenth) otherwise.
 */
export class Progress {
  private done = 0;
  private phase = '';
  private lastTenth = -1;

  constructor(
    private total: number,
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
    private readonly quiet = false,
  ) {}

  start(phase: string, more = 0) {
    this.total += more;
    this.phase = phase;
    if (!this.out.isTTY && !this.quiet) this.out.write(`${phase}...\n`);
    this.draw();
  }

  tick(n = 1) {
    this.done = Math.min(this.total, this.done + n);
    this.draw();
  }

  finish() {
    this.done = this.total;
    this.draw();
    if (this.out.isTTY && !this.quiet) this.out.write('\n');
  }

  private draw() {
    if (this.quiet) return;
    const ratio = this.total ? this.done / this.total : 1;
    if (this.out.isTTY) {
      const width = 30;
      const full = Math.round(ratio * width);
      this.out.write(`\r[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${this.phase.padEnd(28)}`);
      return;
    }
    const tenth = Math.floor(ratio * 10);
    if (tenth !== this.lastTenth) {
      this.lastTenth = tenth;
      this.out.write(`  ${tenth * 10}% (${this.done}/${this.total})\n`);
    }
  }
}
