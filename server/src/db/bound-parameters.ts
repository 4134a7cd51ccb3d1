import { JsonProperty, Utils, type MikroORM } from "@mikro-orm/core";
import type { AbstractSqlConnection, AbstractSqlDriver } from "@mikro-orm/knex";

/**
 * MikroORM 6 runs every statement of the unit of work and of `em.execute` with
 * its values inlined into the SQL text (`Platform.formatQuery`), escaped by the
 * platform. A value the escaping does not foresee then changes the statement
 * itself: SQLite's parser stops at a NUL inside a literal ("unrecognized
 * token"). This makes each connection hand the values to the driver as bound
 * parameters instead; the SQL text MikroORM logs stays the same.
 */
export function bindParameters(orm: MikroORM<AbstractSqlDriver>): void {
  const driver = orm.config.getDriver() as AbstractSqlDriver;
  const connections = new Set<AbstractSqlConnection>([driver.getConnection("write"), driver.getConnection("read")]);
  for (const connection of connections) patch(connection);
}

type Execute = AbstractSqlConnection["execute"];

function patch(connection: AbstractSqlConnection): void {
  const inlined: Execute = connection.execute.bind(connection);
  // The protected members this reaches are MikroORM's own `execute`'s (AbstractSqlConnection.js), reproduced with bindings.
  const self = connection as unknown as {
    ensureConnection(): Promise<void>;
    config: { get(key: "onQuery"): (sql: string, params: readonly unknown[]) => string };
    platform: { formatQuery(sql: string, params: readonly unknown[]): string };
    getSql(query: string, formatted: string, context?: unknown): string;
    executeQuery<T>(sql: string, run: () => Promise<T>, context?: unknown): Promise<T>;
    transformRawResult<T>(res: unknown, method: string): T;
    getKnex(): { raw(sql: string, bindings?: readonly unknown[]): { transacting(ctx: unknown): void } & PromiseLike<unknown> };
  };
  const sqlite = connection.getPlatform().constructor.name.toLowerCase().includes("sqlite");
  connection.execute = (async (queryOrKnex: unknown, params: unknown[] = [], method = "all", ctx?: unknown, loggerContext?: unknown) => {
    if (Utils.isObject(queryOrKnex)) {
      // A knex builder: its SQL and values, as MikroORM's own `execute` takes them.
      const builder = queryOrKnex as { client: { transacting?: unknown }; toSQL(): { sql: string; bindings?: unknown[] } };
      ctx ??= builder.client.transacting ? builder : undefined;
      const compiled = builder.toSQL();
      queryOrKnex = compiled.sql;
      params = [...(compiled.bindings ?? [])];
    }
    if (typeof queryOrKnex !== "string" || params.length === 0 || params.some((p) => Utils.isRawSql(p))) {
      // Raw SQL fragments among the values must be inlined as MikroORM does.
      return inlined(queryOrKnex as string, params, method as "all", ctx as never, loggerContext as never);
    }
    await self.ensureConnection();
    const sql = self.config.get("onQuery")(queryOrKnex, params);
    const logged = self.getSql(sql, self.platform.formatQuery(sql, params), loggerContext);
    const bindings = params.map((value) => bindable(value, sqlite));
    return self.executeQuery(
      logged,
      async () => {
        const query = self.getKnex().raw(sql, bindings);
        if (ctx) query.transacting(ctx);
        return self.transformRawResult(await query, method);
      },
      { query: sql, params, ...(loggerContext as object) },
    );
  }) as Execute;
}

/** A value as the driver binds it, meaning what MikroORM's inlining made of it (AbstractSqlPlatform.quoteValue). */
function bindable(value: unknown, sqlite: boolean): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value) && !(value as { [JsonProperty]?: unknown })[JsonProperty]) return value.map((item) => bindable(item, sqlite));
  if (Utils.isPlainObject(value) || (value as { [JsonProperty]?: unknown } | null)?.[JsonProperty]) return JSON.stringify(value);
  if (sqlite && value instanceof Date) return value.getTime();
  if (sqlite && typeof value === "boolean") return value ? 1 : 0;
  return value;
}
