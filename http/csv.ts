// CSV as RFC 4180 writes it, safe to open in a spreadsheet: every line ends in CRLF, a cell holding a comma, a
// quote or a line break is quoted with its quotes doubled, and a cell a spreadsheet would run as a formula is
// neutralised (OWASP, "CSV Injection"). Excel in many locales reads `;` as the separator, and some readers a tab, so
// a cell is also quoted and neutralised as if either split it.

/**
 * Where a formula may start: the cell's start, and after a `;`, a tab or a line break, where a reader splitting on
 * `;` or tabs, or taking a quoted line break for a line's end, starts a cell. It starts with `=`, `+`, `-`, `@`, or
 * a tab or CR before one, after any spaces or quotes a reader may drop.
 */
const FORMULA_START = /(?<=^|[;\t\r\n])(?=[ "]*[=+\-@\t\r])/g;
/** RFC 4180's characters, the other separators, and an edge space a reader may trim from an unquoted cell. */
const NEEDS_QUOTES = /[",\r\n;\t]|^ | $/;

/**
 * One cell. Each part that starts a formula gets a leading `'`, which spreadsheets show as plain text. A negative
 * number would be neutralised too; this API's amounts are never negative, so no number is changed by it.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value).replace(FORMULA_START, "'");
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record's line, CRLF included. */
export function csvLine(cells: ReadonlyArray<string | number | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';
