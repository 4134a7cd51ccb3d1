/*
 * Runs again the statements bench/micro/batch-costs.ts logged (BATCH_SQL_LOG),
 * each SQL text prepared once as the server does, on a copy of the database
 * the log starts from, so that a native profiler sees where SQLite itself
 * spends the batches' time: libsql's binary is stripped, Debian's static
 * libsqlite3.a keeps the names of SQLite's internal functions.
 *   gcc -O2 -o /tmp/sqlite-replay bench/micro/sqlite-replay.c /usr/lib/x86_64-linux-gnu/libsqlite3.a -lm -lpthread
 *   cp log.db /tmp/r.db && perf record -g /tmp/sqlite-replay /tmp/r.db log "PRAGMA ..."
 * The third argument: the connection's settings (server/src/db/options.ts).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static char *readn(FILE *f, long n) {
  char *s = malloc(n + 1);
  if (fread(s, 1, n, f) != (size_t)n) { fprintf(stderr, "short log\n"); exit(1); }
  s[n] = 0;
  fgetc(f); /* the newline after the bytes */
  return s;
}

#define MAX_STMTS 512
static char *texts[MAX_STMTS];
static sqlite3_stmt *stmts[MAX_STMTS];
static int nstmts;
/* CPU (ms) and runs per statement text: binding, stepping, reading the values, resetting. */
static double spent[MAX_STMTS];
static long runsOf[MAX_STMTS];

static int indexOf(sqlite3_stmt *stmt) {
  for (int i = 0; i < nstmts; i++) if (stmts[i] == stmt) return i;
  return -1;
}

static int bySpent(const void *a, const void *b) {
  double d = spent[*(const int *)b] - spent[*(const int *)a];
  return d > 0 ? 1 : d < 0 ? -1 : 0;
}

static sqlite3_stmt *prepared(sqlite3 *db, char *sql) {
  /* REPLAY_OR_FAIL=1: "insert into" run as "insert or fail into" (the texts of a log taken before hot/sqlite.ts did so). */
  if (getenv("REPLAY_OR_FAIL") && strncmp(sql, "insert into", 11) == 0) {
    char *failing = malloc(strlen(sql) + 9);
    sprintf(failing, "insert or fail into%s", sql + 11);
    free(sql);
    sql = failing;
  }
  for (int i = 0; i < nstmts; i++) if (strcmp(texts[i], sql) == 0) { free(sql); return stmts[i]; }
  if (nstmts == MAX_STMTS) { fprintf(stderr, "too many statements\n"); exit(1); }
  if (sqlite3_prepare_v2(db, sql, -1, &stmts[nstmts], 0) != SQLITE_OK) { fprintf(stderr, "%s: %s\n", sqlite3_errmsg(db), sql); exit(1); }
  texts[nstmts] = sql;
  return stmts[nstmts++];
}

int main(int argc, char **argv) {
  sqlite3 *db;
  if (argc < 3 || sqlite3_open(argv[1], &db) != SQLITE_OK) { fprintf(stderr, "usage: replay db log [pragmas]\n"); return 1; }
  if (argc > 3 && sqlite3_exec(db, argv[3], 0, 0, 0) != SQLITE_OK) { fprintf(stderr, "%s\n", sqlite3_errmsg(db)); return 1; }
  FILE *f = fopen(argv[2], "rb");
  long len, n, runs = 0, rows = 0;
  char tag;
  while (fscanf(f, "Q %ld\n", &len) == 1) {
    sqlite3_stmt *stmt = prepared(db, readn(f, len));
    double start = thread_ms();
    if (fscanf(f, "%ld\n", &n) != 1) return 1;
    for (int i = 1; i <= n; i++) {
      if (fscanf(f, "%c", &tag) != 1) return 1;
      if (tag == 'n') { fgetc(f); sqlite3_bind_null(stmt, i); continue; }
      char number[64];
      if (tag == 'i' || tag == 'f') {
        if (fscanf(f, " %63s\n", number) != 1) return 1;
        if (tag == 'i') sqlite3_bind_int64(stmt, i, strtoll(number, 0, 10)); else sqlite3_bind_double(stmt, i, strtod(number, 0));
        continue;
      }
      if (fscanf(f, " %ld\n", &len) != 1) return 1;
      char *bytes = readn(f, len);
      if (tag == 't') sqlite3_bind_text(stmt, i, bytes, len, free); else sqlite3_bind_blob(stmt, i, bytes, len, free);
    }
    /* REPLAY_MARK=1: each statement's text announced on stderr first, so that a system-call trace shows what each does. */
    if (getenv("REPLAY_MARK")) fprintf(stderr, "@%.70s\n", sqlite3_sql(stmt));
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      /* Every value read out, as the binding does for JavaScript. */
      for (int c = 0; c < sqlite3_column_count(stmt); c++) {
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER: sqlite3_column_int64(stmt, c); break;
          case SQLITE_FLOAT: sqlite3_column_double(stmt, c); break;
          case SQLITE_TEXT: sqlite3_column_text(stmt, c); break;
          case SQLITE_BLOB: sqlite3_column_blob(stmt, c); break;
        }
      }
      rows++;
    }
    if (rc != SQLITE_DONE) { fprintf(stderr, "%s: %s\n", sqlite3_errmsg(db), sqlite3_sql(stmt)); return 1; }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    int at = indexOf(stmt);
    spent[at] += thread_ms() - start;
    runsOf[at]++;
    runs++;
  }
  fprintf(stderr, "%ld statements run, %ld rows read\n", runs, rows);
  /* REPLAY_TOP=n: the n statement texts that took the most CPU (parsing the log excluded). */
  int order[MAX_STMTS], top = getenv("REPLAY_TOP") ? atoi(getenv("REPLAY_TOP")) : 0;
  for (int i = 0; i < nstmts; i++) order[i] = i;
  qsort(order, nstmts, sizeof order[0], bySpent);
  for (int i = 0; i < top && i < nstmts; i++) fprintf(stderr, "%8.1f ms %6ld×  %.100s\n", spent[order[i]], runsOf[order[i]], texts[order[i]]);
  sqlite3_close(db);
  return 0;
}
