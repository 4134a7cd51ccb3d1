/*
 * CSV exports (RFC 4180): a header line, then one line per row, CRLF line
 * ends. Hand-written because it is this one small pure function; the rules
 * are the RFC's plus the spreadsheet-formula guard below.
 */

export type CsvCell = string | number | null;

/** A text cell a spreadsheet would run as a formula (`=HYPERLINK(…)`): shown as text once prefixed with `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: numbers as written, text guarded against formulas, quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: CsvCell): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The whole document: `columns` as the header line, each row's cells in the same order. */
export function toCsv(columns: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [columns, ...rows].map((cells) => cells.map(csvCell).join(",") + "\r\n").join("");
}
