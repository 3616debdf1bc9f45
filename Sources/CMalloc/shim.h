// glibc's malloc tuning (mallopt(3)), used by `tipjar serve` at start-up, and malloc_trim(3), used by
// HTTPServer's event loop after many connections closed.
#include <malloc.h>
