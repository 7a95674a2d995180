/**
 * The fault matrix: faults down, where they hit across, one short result per
 * cell ("final: failed, 1 note, history kept"). Printed when the suite ends.
 */
export class FaultMatrix {
  private readonly cells = new Map<string, string>();
  private readonly rows: string[] = [];
  private readonly columns: string[] = [];

  set(fault: string, where: string, result: string): void {
    if (!this.rows.includes(fault)) this.rows.push(fault);
    if (!this.columns.includes(where)) this.columns.push(where);
    this.cells.set(`${fault}\u0000${where}`, result);
  }

  get size(): number {
    return this.cells.size;
  }

  /** One block per column: `fault  result` lines (wide tables do not fit a CI log). */
  render(): string[] {
    const width = Math.max(...this.rows.map((r) => r.length));
    const lines: string[] = [];
    for (const where of this.columns) {
      lines.push(`${where}:`);
      for (const fault of this.rows) {
        const result = this.cells.get(`${fault}\u0000${where}`);
        if (result !== undefined) lines.push(`  ${fault.padEnd(width)}  ${result}`);
      }
    }
    return lines;
  }
}
