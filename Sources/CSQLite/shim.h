#include <sqlite3.h>

/* sqlite3_config is variadic (not callable from Swift): turn off memory statistics, whose global
   mutex every allocation takes. Call before the library is first used. */
static inline int sqlite3_config_memstatus_off(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
