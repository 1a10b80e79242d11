#ifndef PULSE_LAZY_LOAD_H
#define PULSE_LAZY_LOAD_H

/* One shared library opened on first use (lazy_load.c says why). */
#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *soname;   /* e.g. "libcurl.so.4" */
    const char *package;  /* the Debian package that ships it, named in the error */
    void *volatile handle;
    /* Optional: a library opened first, RTLD_GLOBAL, so its definitions take precedence over the
       library's own (libcld2_full's tables over libcld2's small built-in ones, as the link order
       -lcld2_full -lcld2 did). */
    const char *interposer;
} pulse_lazy_library;

/* `*slot` when already resolved; else the address of `symbol` in `library` (opening the library on
   first use), stored in `*slot`. A library or symbol that cannot be found ends the process with a
   message naming both (exit status 69). */
void *pulse_lazy_symbol(pulse_lazy_library *library, void *volatile *slot, const char *symbol);

/* Opens the library now (same failure as above), so a service reports a missing package at start
   rather than at its first article. */
void pulse_lazy_open(pulse_lazy_library *library);

/* Libraries opened after this call bind each function on its first call (RTLD_LAZY), not all at
   once: libxml2 brings ICU and libstdc++, whose thousands of symbol bindings were a third of a
   small `--dump-feed`'s start (6.52M -> 5.13M instructions, 4.42 -> 3.90 ms). Only for a process
   that runs to completion on its own threads (the dump modes on local files): the service keeps
   binding everything at open, where a late binding can never run during exit. */
void pulse_lazy_bind_on_call(void);

/* Defines `name` as a forwarder that resolves the real function once. `params` and `args` are
   parenthesised lists. Hidden, so it never interposes the library's own symbol. Once resolved, a
   call is one load and a jump: the feed parser makes millions of these calls per corpus. */
#define PULSE_LAZY_FUNCTION(library, ret, name, params, args)                                   \
    __attribute__((visibility("hidden"))) ret name params {                                       \
        static void *volatile slot;                                                               \
        void *address = __atomic_load_n(&slot, __ATOMIC_ACQUIRE);                                 \
        if (__builtin_expect(address == 0, 0)) address = pulse_lazy_symbol(&(library), &slot, #name); \
        return ((ret (*) params)address) args;                                                    \
    }

#ifdef __cplusplus
}
#endif

#endif
