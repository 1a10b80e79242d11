/* libcurl, opened on first use (Sources/CLazyLoad/lazy_load.c says why): one line per function
   the Swift code calls. A function missing here fails the link, naming it. */
#include "CCurl.h"
#include "pulse_lazy_load.h"

static pulse_lazy_library curl_library = { .soname = "libcurl.so.4", .package = "libcurl4" };
#define CURL_FUNCTION(ret, name, params, args) PULSE_LAZY_FUNCTION(curl_library, ret, name, params, args)

CURL_FUNCTION(CURLcode, curl_global_init, (long flags), (flags))
CURL_FUNCTION(CURL *, curl_easy_init, (void), ())
CURL_FUNCTION(void, curl_easy_cleanup, (CURL *h), (h))
CURL_FUNCTION(const char *, curl_easy_strerror, (CURLcode code), (code))
CURL_FUNCTION(CURLHcode, curl_easy_header, (CURL *h, const char *name, size_t index, unsigned int origin, int request, struct curl_header **hout), (h, name, index, origin, request, hout))
CURL_FUNCTION(curl_version_info_data *, curl_version_info, (CURLversion stamp), (stamp))
CURL_FUNCTION(void, curl_free, (void *p), (p))
CURL_FUNCTION(time_t, curl_getdate, (const char *p, const time_t *unused), (p, unused))
CURL_FUNCTION(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *s), (list, s))
CURL_FUNCTION(void, curl_slist_free_all, (struct curl_slist *list), (list))
CURL_FUNCTION(CURLM *, curl_multi_init, (void), ())
CURL_FUNCTION(CURLMcode, curl_multi_cleanup, (CURLM *m), (m))
CURL_FUNCTION(CURLMcode, curl_multi_add_handle, (CURLM *m, CURL *h), (m, h))
CURL_FUNCTION(CURLMcode, curl_multi_remove_handle, (CURLM *m, CURL *h), (m, h))
CURL_FUNCTION(CURLMcode, curl_multi_perform, (CURLM *m, int *running), (m, running))
CURL_FUNCTION(CURLMcode, curl_multi_poll, (CURLM *m, struct curl_waitfd extra[], unsigned int n, int timeout, int *ret), (m, extra, n, timeout, ret))
CURL_FUNCTION(CURLMcode, curl_multi_wakeup, (CURLM *m), (m))
CURL_FUNCTION(CURLMsg *, curl_multi_info_read, (CURLM *m, int *queued), (m, queued))
CURL_FUNCTION(CURLU *, curl_url, (void), ())
CURL_FUNCTION(void, curl_url_cleanup, (CURLU *u), (u))
CURL_FUNCTION(CURLUcode, curl_url_get, (CURLU *u, CURLUPart what, char **part, unsigned int flags), (u, what, part, flags))
CURL_FUNCTION(CURLUcode, curl_url_set, (CURLU *u, CURLUPart what, const char *part, unsigned int flags), (u, what, part, flags))

/* The variadic three: resolved once each, then called with their one typed argument. */
static void *volatile easy_setopt_slot, *volatile easy_getinfo_slot, *volatile multi_setopt_slot;
#define EASY_SETOPT ((CURLcode (*)(CURL *, CURLoption, ...))pulse_lazy_symbol(&curl_library, &easy_setopt_slot, "curl_easy_setopt"))
#define EASY_GETINFO ((CURLcode (*)(CURL *, CURLINFO, ...))pulse_lazy_symbol(&curl_library, &easy_getinfo_slot, "curl_easy_getinfo"))
#define MULTI_SETOPT ((CURLMcode (*)(CURLM *, CURLMoption, ...))pulse_lazy_symbol(&curl_library, &multi_setopt_slot, "curl_multi_setopt"))

CURLcode pulse_curl_setopt_long(CURL *h, CURLoption o, long v) { return EASY_SETOPT(h, o, v); }
CURLcode pulse_curl_setopt_ptr(CURL *h, CURLoption o, void *v) { return EASY_SETOPT(h, o, v); }
CURLcode pulse_curl_setopt_str(CURL *h, CURLoption o, const char *v) { return EASY_SETOPT(h, o, v); }
CURLcode pulse_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return EASY_SETOPT(h, o, v); }
CURLcode pulse_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return EASY_SETOPT(h, CURLOPT_WRITEFUNCTION, f); }
CURLcode pulse_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return EASY_SETOPT(h, CURLOPT_HEADERFUNCTION, f); }
CURLcode pulse_curl_setopt_opensocket(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *)) { return EASY_SETOPT(h, CURLOPT_OPENSOCKETFUNCTION, f); }
CURLcode pulse_curl_setopt_xferinfo(CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return EASY_SETOPT(h, CURLOPT_XFERINFOFUNCTION, f); }
CURLcode pulse_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return EASY_GETINFO(h, i, v); }
CURLcode pulse_curl_getinfo_str(CURL *h, CURLINFO i, char **v) { return EASY_GETINFO(h, i, v); }
CURLcode pulse_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return EASY_GETINFO(h, i, v); }
CURLcode pulse_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return EASY_GETINFO(h, i, v); }
CURLMcode pulse_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return MULTI_SETOPT(m, o, v); }
