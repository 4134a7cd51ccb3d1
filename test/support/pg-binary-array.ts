/**
 * Reads back a one-dimensional array in PostgreSQL's binary format (as
 * server/src/db/hot/pg-binary-arrays.ts writes it) for tests that look at
 * what the hot store sends: texts as strings, numbers as numbers, booleans,
 * nulls as null.
 */
const ELEMENTS: Record<number, (bytes: Buffer) => unknown> = {
  25: (bytes) => bytes.toString("utf8"),
  20: (bytes) => Number(bytes.readBigInt64BE(0)),
  23: (bytes) => bytes.readInt32BE(0),
  701: (bytes) => bytes.readDoubleBE(0),
  16: (bytes) => bytes[0] === 1,
};

export function decodeBinaryArray(buffer: Buffer): { element: number; values: unknown[] } {
  const dimensions = buffer.readInt32BE(0);
  const element = buffer.readInt32BE(8);
  if (dimensions === 0) return { element, values: [] };
  if (dimensions !== 1 || buffer.readInt32BE(16) !== 1) throw new Error("not a one-dimensional array from 1");
  const count = buffer.readInt32BE(12);
  const values: unknown[] = [];
  let offset = 20;
  for (let i = 0; i < count; i++) {
    const length = buffer.readInt32BE(offset);
    offset += 4;
    if (length === -1) {
      values.push(null);
      continue;
    }
    values.push(ELEMENTS[element](buffer.subarray(offset, offset + length)));
    offset += length;
  }
  if (offset !== buffer.length) throw new Error(`${buffer.length - offset} bytes after the last element`);
  return { element, values };
}
