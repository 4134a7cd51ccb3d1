/**
 * Array parameters in PostgreSQL's binary array format (array_send /
 * array_recv), for the hot path's one-array-per-column statements.
 *
 * node-postgres sends a Buffer parameter in binary format and a string in
 * text format, each parameter on its own, so a statement may mix both; the
 * statement's text is the same either way (`unnest($1::int8[])`: the cast
 * gives the parameter its type, whose receive function reads the binary
 * form). Compared with the literal text of arrayParameter (postgres.ts;
 * figures: docs/performance-log.md#postgresql-binary-arrays):
 * - Node: numbers are written as bytes instead of formatted by
 *   JSON.stringify; ASCII strings are joined once with a 4-byte placeholder
 *   before each, written in one copy, and the placeholders patched with the
 *   lengths: no per-element quoting or escape scan, and the Buffer lives
 *   outside V8's heap.
 * - PostgreSQL: array_recv calls each element's receive function on a
 *   length-prefixed slice instead of array_in's character-by-character
 *   parse and the element's text input (strtod for a float8, the integer
 *   parsers, quote handling for texts).
 * Only values whose binary form is certainly the value the text path would
 * store are encoded here; any other array (a non-ASCII text, a number that is
 * not a safe integer for int8 or not an int32 for int4, a non-finite
 * float8, a value of another JavaScript type, an empty array) gets null, and
 * the caller sends it as before: same stored values, same errors.
 */

/** The element types sent in binary, by PostgreSQL type name. */
export type BinaryElement = "text" | "int8" | "int4" | "float8" | "bool";

/** The element type's OID, which array_recv checks against the parameter's declared type. */
const ELEMENT_OID: Record<BinaryElement, number> = { text: 25, int8: 20, int4: 23, float8: 701, bool: 16 };

/** ndim, flags (has nulls), element OID, then one dimension's length and lower bound. */
const HEADER_BYTES = 20;
/** An element's length prefix: -1 for NULL. */
const NULL_LENGTH = -1;
/** What a text element's length prefix takes the place of in the joined text (see textArray). */
const PLACEHOLDER = "\0\0\0\0";
const TWO_TO_32 = 2 ** 32;

/** `values` as a binary array of `element`, or null when they must go as text (see above). */
export function binaryArray(element: BinaryElement, values: readonly unknown[]): Buffer | null {
  if (values.length === 0) return null;
  switch (element) {
    case "text":
      return textArray(values);
    case "int8":
      return int8Array(values);
    case "int4":
      return int4Array(values);
    case "float8":
      return float8Array(values);
    case "bool":
      return boolArray(values);
  }
}

/**
 * A buffer for `count` elements of at most `size` bytes each after their
 * length prefix, and a DataView over it: its setters are compiled inline
 * (Buffer#writeInt32BE and the like checked ranges per call, ≈ 20 ns an
 * element).
 */
function allocate(count: number, size: number): { buffer: Buffer; view: DataView } {
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + (4 + size) * count);
  return { buffer, view: new DataView(buffer.buffer, buffer.byteOffset, buffer.length) };
}

/** Writes the header and returns the array's bytes (`end`: after the last element; nulls take fewer bytes than allocated). */
function finish(buffer: Buffer, view: DataView, element: BinaryElement, count: number, nulls: boolean, end: number): Buffer {
  view.setInt32(0, 1);
  view.setInt32(4, nulls ? 1 : 0);
  view.setInt32(8, ELEMENT_OID[element]);
  view.setInt32(12, count);
  view.setInt32(16, 1);
  return end === buffer.length ? buffer : buffer.subarray(0, end);
}

/**
 * ASCII texts (and nulls): `values.join` with a placeholder before each
 * element (null joins as an empty text) is written in one latin1 copy, ASCII
 * being its own UTF-8; then each placeholder becomes its element's length
 * (its character count, ASCII again), or -1 for a null. A text with any
 * other character goes as text: its UTF-8 length is not its `length`.
 */
function textArray(values: readonly unknown[]): Buffer | null {
  let nulls = false;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) nulls = true;
    else if (typeof value !== "string") return null;
  }
  // The first element's placeholder is not in the text: prepending it would make a rope that byteLength and
  // write flatten into a copy of the whole text (docs/performance-log.md#postgresql-binary-arrays).
  const joined = values.join(PLACEHOLDER);
  if (Buffer.byteLength(joined, "utf8") !== joined.length) return null;
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + PLACEHOLDER.length + joined.length);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
  buffer.write(joined, HEADER_BYTES + PLACEHOLDER.length, "latin1");
  let offset = HEADER_BYTES;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as string | null | undefined;
    if (value === null || value === undefined) {
      view.setInt32(offset, NULL_LENGTH);
      offset += 4;
    } else {
      view.setInt32(offset, value.length);
      offset += 4 + value.length;
    }
  }
  return finish(buffer, view, "text", values.length, nulls, offset);
}

/*
 * Fixed-size elements: a length prefix and the value's bytes, or a length of
 * -1 and no bytes for a null. One loop per type rather than one loop calling
 * a writer per type: that call, shared by the types, was not inlined.
 */

/** Safe integers only: the text path sends any other number as JSON writes it, which PostgreSQL may take (2^60) or refuse (1.5). */
function int8Array(values: readonly unknown[]): Buffer | null {
  const { buffer, view } = allocate(values.length, 8);
  let nulls = false;
  let offset = HEADER_BYTES;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      nulls = true;
      view.setInt32(offset, NULL_LENGTH);
      offset += 4;
    } else if (Number.isSafeInteger(value)) {
      const high = Math.floor((value as number) / TWO_TO_32);
      view.setInt32(offset, 8);
      view.setInt32(offset + 4, high);
      view.setUint32(offset + 8, (value as number) - high * TWO_TO_32);
      offset += 12;
    } else {
      return null;
    }
  }
  return finish(buffer, view, "int8", values.length, nulls, offset);
}

function int4Array(values: readonly unknown[]): Buffer | null {
  const { buffer, view } = allocate(values.length, 4);
  let nulls = false;
  let offset = HEADER_BYTES;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      nulls = true;
      view.setInt32(offset, NULL_LENGTH);
      offset += 4;
    } else if (typeof value === "number" && (value | 0) === value) {
      view.setInt32(offset, 4);
      view.setInt32(offset + 4, value);
      offset += 8;
    } else {
      return null;
    }
  }
  return finish(buffer, view, "int4", values.length, nulls, offset);
}

/** Finite numbers; -0 goes as 0, as its JSON text "0" does. */
function float8Array(values: readonly unknown[]): Buffer | null {
  const { buffer, view } = allocate(values.length, 8);
  let nulls = false;
  let offset = HEADER_BYTES;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      nulls = true;
      view.setInt32(offset, NULL_LENGTH);
      offset += 4;
    } else if (typeof value === "number" && Number.isFinite(value)) {
      view.setInt32(offset, 8);
      view.setFloat64(offset + 4, value === 0 ? 0 : value);
      offset += 12;
    } else {
      return null;
    }
  }
  return finish(buffer, view, "float8", values.length, nulls, offset);
}

function boolArray(values: readonly unknown[]): Buffer | null {
  const { buffer, view } = allocate(values.length, 1);
  let nulls = false;
  let offset = HEADER_BYTES;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      nulls = true;
      view.setInt32(offset, NULL_LENGTH);
      offset += 4;
    } else if (typeof value === "boolean") {
      view.setInt32(offset, 1);
      view.setUint8(offset + 4, value ? 1 : 0);
      offset += 5;
    } else {
      return null;
    }
  }
  return finish(buffer, view, "bool", values.length, nulls, offset);
}
