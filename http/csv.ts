// CSV as RFC 4180 writes it, safe to open in a spreadsheet: every line ends in CRLF, a cell holding a comma, a
// quote or a line break is quoted with its quotes doubled, and a cell a spreadsheet would run as a formula is
// neutralised (OWASP, "CSV Injection").

/** What starts a formula in Excel, LibreOffice or Google Sheets: `=`, `+`, `-`, `@`, and a tab or CR before one. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell. A text that starts a formula gets a leading `'`, which spreadsheets show as plain text. A negative
 * number would be neutralised too; this API's amounts are never negative, so no number is changed by it.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record's line, CRLF included. */
export function csvLine(cells: ReadonlyArray<string | number | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';
