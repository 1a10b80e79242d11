/* Why the C libraries are opened on first use instead of linked as DT_NEEDED:
   libcurl and libpq each pull in about twenty more libraries (OpenSSL, GnuTLS via LDAP, Kerberos,
   SASL, nghttp2, ssh2, rtmp, p11-kit...). Loading and relocating them was about half of the
   12 ms `pulse-ingest --help` or `--dump-feed small.xml` took from exec to exit (hello-world
   binaries linking one library each: +4.5 ms libcurl, +3.5 ms libpq, overlapping). The dump modes,
   --help and --check-config touch neither, so they no longer pay for them; the service opens both
   in its first milliseconds, as before. No package here does dlopen/dlsym for us: hand-written. */
#include "pulse_lazy_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static int bind_flag = RTLD_NOW;

void pulse_lazy_bind_on_call(void) { __atomic_store_n(&bind_flag, RTLD_LAZY, __ATOMIC_RELAXED); }

static void *open_or_exit(const char *soname, int flags, const char *package) {
    void *handle = dlopen(soname, flags);
    if (handle == NULL) {
        const char *reason = dlerror();
        fprintf(stderr, "pulse-ingest: cannot load %s (%s); install the Debian package %s\n",
                soname, reason ? reason : "unknown error", package);
        fflush(NULL);
        _exit(69);  /* no exit-time destructors under other threads' work (see ProcessEnd) */
    }
    return handle;
}

static void *open_library(pulse_lazy_library *library) {
    void *handle = __atomic_load_n(&library->handle, __ATOMIC_ACQUIRE);
    if (handle != NULL) return handle;
    pthread_mutex_lock(&open_lock);
    handle = library->handle;
    if (handle == NULL) {
        /* RTLD_NOW unless a one-shot mode asked otherwise: everything binds here, under our lock,
           and never later from a libpq or curl thread (possibly while the process exits). RTLD_LAZY
           for all processes saved 0.1-0.3 ms of a small `--dump-feed`, but the service was once
           seen to die of SIGSEGV at SIGTERM while it was in use; so only the modes that call
           pulse_lazy_bind_on_call (header) bind lazily. */
        int bind = __atomic_load_n(&bind_flag, __ATOMIC_RELAXED);
        if (library->interposer != NULL) open_or_exit(library->interposer, bind | RTLD_GLOBAL, library->package);
        handle = open_or_exit(library->soname, bind | RTLD_LOCAL, library->package);
        __atomic_store_n(&library->handle, handle, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&open_lock);
    return handle;
}

void *pulse_lazy_symbol(pulse_lazy_library *library, void *volatile *slot, const char *symbol) {
    void *address = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (address != NULL) return address;
    address = dlsym(open_library(library), symbol);
    if (address == NULL) {
        fprintf(stderr, "pulse-ingest: %s has no symbol %s; the installed %s is too old\n",
                library->soname, symbol, library->package);
        fflush(NULL);
        _exit(69);
    }
    __atomic_store_n(slot, address, __ATOMIC_RELEASE);
    return address;
}

void pulse_lazy_open(pulse_lazy_library *library) { (void)open_library(library); }
