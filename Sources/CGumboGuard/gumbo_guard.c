#include "gumbo_guard.h"
#include <setjmp.h>
#include <stdlib.h>
#include <time.h>

/// Every block gumbo allocates carries this header, so an abandoned parse can free them all.
typedef struct Block {
    struct Block *prev, *next;
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned on 64-bit */
} Block;

struct PulseGumboGuard {
    GumboOptions options;
    GumboOutput *output;
    Block head;
    size_t live, peak, max_bytes, calls;
    double cpu_start, max_cpu;
    int status;
    int parsing;
    jmp_buf escape;
};

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *guarded_alloc(void *userdata, size_t size) {
    PulseGumboGuard *g = userdata;
    if (g->parsing) {
        if (g->live + size > g->max_bytes) { g->status = PULSE_GUMBO_MEMORY; longjmp(g->escape, 1); }
        /* The CPU clock is a system call: read it every 256 allocations (gumbo allocates per token). */
        if ((++g->calls & 255) == 0 && thread_cpu() - g->cpu_start > g->max_cpu) {
            g->status = PULSE_GUMBO_CPU;
            longjmp(g->escape, 1);
        }
    }
    Block *b = malloc(sizeof(Block) + size);
    if (!b) { g->status = PULSE_GUMBO_MEMORY; if (g->parsing) longjmp(g->escape, 1); abort(); }
    b->size = size;
    b->next = g->head.next;
    b->prev = &g->head;
    if (b->next) b->next->prev = b;
    g->head.next = b;
    g->live += size;
    if (g->live > g->peak) g->peak = g->live;
    return b + 1;
}

static void guarded_free(void *userdata, void *ptr) {
    if (!ptr) return;
    PulseGumboGuard *g = userdata;
    Block *b = (Block *)ptr - 1;
    b->prev->next = b->next;
    if (b->next) b->next->prev = b->prev;
    g->live -= b->size;
    free(b);
}

static void free_all(PulseGumboGuard *g) {
    Block *b = g->head.next;
    while (b) { Block *next = b->next; free(b); b = next; }
    g->head.next = NULL;
    g->live = 0;
}

PulseGumboGuard *pulse_gumbo_parse(const char *buffer, size_t length, size_t max_bytes,
                                   double max_cpu_seconds, int *status) {
    PulseGumboGuard *g = calloc(1, sizeof(PulseGumboGuard));
    if (!g) { *status = PULSE_GUMBO_MEMORY; return NULL; }
    g->options = kGumboDefaultOptions;
    g->options.max_errors = 0;
    g->options.allocator = guarded_alloc;
    g->options.deallocator = guarded_free;
    g->options.userdata = g;
    g->max_bytes = max_bytes;
    g->max_cpu = max_cpu_seconds;
    g->cpu_start = thread_cpu();
    if (setjmp(g->escape) != 0) {
        /* Abandoned inside gumbo: its state is garbage, but every block it had is on our list. */
        *status = g->status;
        free_all(g);
        free(g);
        return NULL;
    }
    g->parsing = 1;
    g->output = gumbo_parse_with_options(&g->options, buffer, length);
    g->parsing = 0;
    if (!g->output || !g->output->document) {
        *status = PULSE_GUMBO_FAILED;
        free_all(g);
        free(g);
        return NULL;
    }
    *status = PULSE_GUMBO_OK;
    return g;
}

GumboOutput *pulse_gumbo_output(PulseGumboGuard *guard) { return guard->output; }
size_t pulse_gumbo_peak_bytes(PulseGumboGuard *guard) { return guard->peak; }

void pulse_gumbo_destroy(PulseGumboGuard *guard) {
    if (!guard) return;
    if (guard->output) gumbo_destroy_output(&guard->options, guard->output);
    free_all(guard);
    free(guard);
}
