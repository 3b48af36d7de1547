/** Nearest-rank percentile of durations in ms; `p` in 0..100. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) throw new Error('No samples');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export const median = (values: number[]) => percentile(values, 50);
