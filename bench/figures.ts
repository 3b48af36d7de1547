/** A limit from the issue: the figure must stay at or under `value`, reach it, or equal it exactly. */
export interface Target {
  kind: 'max' | 'min' | 'exact';
  value: number;
}

export interface Figure {
  /** Stable key, e.g. `checkout.sequential.ratio`. */
  id: string;
  label: string;
  value: number;
  unit: string;
  /** What the value was computed from, e.g. the two medians behind a ratio. */
  detail?: string;
  target?: Target;
  /** Present exactly when there is a target. */
  met?: boolean;
}

export const atMost = (value: number): Target => ({ kind: 'max', value });
export const atLeast = (value: number): Target => ({ kind: 'min', value });
export const exactly = (value: number): Target => ({ kind: 'exact', value });

export function figure(fields: Omit<Figure, 'met'>): Figure {
  const { target, value } = fields;
  if (!target) return fields;
  const met =
    target.kind === 'max'
      ? value <= target.value
      : target.kind === 'min'
        ? value >= target.value
        : value === target.value;
  return { ...fields, met };
}

export function formatValue(value: number, unit: string): string {
  const digits = unit === 'x' ? 3 : Number.isInteger(value) ? 0 : value < 10 ? 2 : 1;
  const text = value.toFixed(digits);
  return unit === 'x' ? `${text}x` : `${text} ${unit}`.trimEnd();
}

export function formatTarget(target: Target | undefined, unit: string): string {
  if (!target) return '-';
  const sign = { max: '<=', min: '>=', exact: '=' }[target.kind];
  return `${sign} ${formatValue(target.value, unit)}`;
}

/** The one table: figure, value, target, met. */
export function renderTable(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.label,
    formatValue(f.value, f.unit) + (f.detail ? ` (${f.detail})` : ''),
    formatTarget(f.target, f.unit),
    f.met === undefined ? '' : f.met ? 'met' : 'NOT MET',
  ]);
  const header = ['figure', 'value', 'target', 'met'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
