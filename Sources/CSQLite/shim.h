#include <sqlite3.h>

/// Turns off SQLite's memory statistics before the library initializes: every allocation otherwise takes a
/// process-wide mutex to count itself, so connections on different threads contend for it
/// (https://www.sqlite.org/c3ref/c_config_covering_index_scan.html#sqliteconfigmemstatus). `sqlite3_config` is
/// variadic, which Swift cannot call. Answers `SQLITE_MISUSE` once SQLite has initialized.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
