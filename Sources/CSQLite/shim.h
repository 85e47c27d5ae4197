// SQLite's header, for its types and constants only: nothing is linked. Provisioning's
// SQLiteCalls.swift loads libsqlite3.so.0 with dlopen when a SQLite ledger is opened and resolves
// each function below from that handle, typed by the pointer types declared here.
#include <sqlite3.h>

// A pointer to each function SQLiteCalls.swift resolves, typed from the header's own declaration
// (so a resolved symbol is called with exactly its C signature): csqlite_fn_NAME.
#define CSQLITE_FUNCTION(name) typedef __typeof__(name) *csqlite_fn_##name;
CSQLITE_FUNCTION(sqlite3_open_v2)
CSQLITE_FUNCTION(sqlite3_close_v2)
CSQLITE_FUNCTION(sqlite3_busy_timeout)
CSQLITE_FUNCTION(sqlite3_errmsg)
CSQLITE_FUNCTION(sqlite3_errcode)
CSQLITE_FUNCTION(sqlite3_prepare_v2)
CSQLITE_FUNCTION(sqlite3_finalize)
CSQLITE_FUNCTION(sqlite3_bind_int64)
CSQLITE_FUNCTION(sqlite3_bind_text)
CSQLITE_FUNCTION(sqlite3_bind_null)
CSQLITE_FUNCTION(sqlite3_step)
CSQLITE_FUNCTION(sqlite3_column_count)
CSQLITE_FUNCTION(sqlite3_column_type)
CSQLITE_FUNCTION(sqlite3_column_int64)
CSQLITE_FUNCTION(sqlite3_column_text)
CSQLITE_FUNCTION(sqlite3_last_insert_rowid)
#undef CSQLITE_FUNCTION
