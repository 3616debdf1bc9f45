// glibc's malloc tuning (mallopt(3)), used by `tipjar serve` at start-up.
#include <malloc.h>
