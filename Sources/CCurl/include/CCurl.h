#include <curl/curl.h>

/* curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt are variadic, which Swift cannot call;
   these typed forwarders are defined in curl_functions.c. */
CURLcode pulse_curl_setopt_long(CURL *h, CURLoption o, long v);
CURLcode pulse_curl_setopt_ptr(CURL *h, CURLoption o, void *v);
CURLcode pulse_curl_setopt_str(CURL *h, CURLoption o, const char *v);
CURLcode pulse_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode pulse_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *));
CURLcode pulse_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *));
CURLcode pulse_curl_setopt_opensocket(CURL *h, curl_socket_t (*f)(void *, curlsocktype, struct curl_sockaddr *));
CURLcode pulse_curl_setopt_xferinfo(CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLcode pulse_curl_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode pulse_curl_getinfo_str(CURL *h, CURLINFO i, char **v);
CURLcode pulse_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v);
CURLcode pulse_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v);
CURLMcode pulse_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v);
