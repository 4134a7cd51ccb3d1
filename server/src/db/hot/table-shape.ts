import { BigIntType, DoubleType, JsonType, ReferenceKind, type EntityMetadata } from "@mikro-orm/core";

/** How a column's values are bound: each dialect converts them its own way (see postgres.ts, sqlite.ts). */
export type ColumnKind = "text" | "json" | "bigint" | "integer" | "double" | "boolean" | "datetime";

export interface TableShape {
  table: string;
  /** Every scalar column, in the entity's order. */
  columns: { property: string; field: string; kind: ColumnKind }[];
}

const shapes = new WeakMap<EntityMetadata, TableShape>();

/** The table and columns of an entity, read off MikroORM's metadata once (the entities stay the one place columns are declared). */
export function tableShape(meta: EntityMetadata): TableShape {
  let shape = shapes.get(meta);
  if (!shape) {
    const columns = meta.props
      .filter((prop) => prop.kind === ReferenceKind.SCALAR && prop.persist !== false && prop.fieldNames?.length === 1)
      .map((prop) => ({ property: prop.name as string, field: prop.fieldNames[0], kind: kindOf(prop.customType, prop.runtimeType) }));
    shape = { table: meta.tableName, columns };
    shapes.set(meta, shape);
  }
  return shape;
}

function kindOf(customType: unknown, runtimeType: string): ColumnKind {
  if (customType instanceof JsonType) return "json";
  if (customType instanceof BigIntType) return "bigint";
  if (customType instanceof DoubleType) return "double";
  if (runtimeType === "Date") return "datetime";
  if (runtimeType === "number") return "integer";
  if (runtimeType === "boolean") return "boolean";
  return "text";
}
