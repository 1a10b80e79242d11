#ifndef PULSE_GUMBO_GUARD_H
#define PULSE_GUMBO_GUARD_H
#include <stddef.h>
#include <gumbo.h>

/// Why a guarded parse stopped early (0: it did not).
enum { PULSE_GUMBO_OK = 0, PULSE_GUMBO_MEMORY = 1, PULSE_GUMBO_CPU = 2, PULSE_GUMBO_FAILED = 3 };

typedef struct PulseGumboGuard PulseGumboGuard;

/// gumbo_parse on a per-parse arena: past `max_bytes` taken from malloc (arena chunks and large
/// blocks) or `max_cpu_seconds` of this thread's CPU time the parse is abandoned (longjmp out of
/// gumbo's allocator) and all its memory is freed. Returns the guard holding the output, or NULL
/// with *status set.
PulseGumboGuard *pulse_gumbo_parse(const char *buffer, size_t length, size_t max_bytes,
                                   double max_cpu_seconds, int *status);
GumboOutput *pulse_gumbo_output(PulseGumboGuard *guard);
/// Peak of the bytes the parse took from malloc.
size_t pulse_gumbo_peak_bytes(PulseGumboGuard *guard);
/// Frees the output (with the whole arena) and the guard.
void pulse_gumbo_destroy(PulseGumboGuard *guard);
#endif
