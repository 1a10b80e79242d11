#ifndef PULSE_LAZY_LOAD_H
#define PULSE_LAZY_LOAD_H

/* One shared library opened on first use (lazy_load.c says why). */
typedef struct {
    const char *soname;   /* e.g. "libcurl.so.4" */
    const char *package;  /* the Debian package that ships it, named in the error */
    void *volatile handle;
} pulse_lazy_library;

/* `*slot` when already resolved; else the address of `symbol` in `library` (opening the library on
   first use), stored in `*slot`. A library or symbol that cannot be found ends the process with a
   message naming both (exit status 69). */
void *pulse_lazy_symbol(pulse_lazy_library *library, void *volatile *slot, const char *symbol);

/* Defines `name` as a forwarder that resolves the real function once. `params` and `args` are
   parenthesised lists. Hidden, so it never interposes the library's own symbol. Once resolved, a
   call is one load and a jump: the feed parser makes millions of these calls per corpus. */
#define PULSE_LAZY_FUNCTION(library, ret, name, params, args)                                      \
    __attribute__((visibility("hidden"))) ret name params {                                       \
        static void *volatile slot;                                                               \
        void *address = __atomic_load_n(&slot, __ATOMIC_ACQUIRE);                                 \
        if (__builtin_expect(address == 0, 0)) address = pulse_lazy_symbol(&(library), &slot, #name); \
        return ((ret (*) params)address) args;                                                    \
    }

#endif
