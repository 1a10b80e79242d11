/* gumbo, opened on first use like libxml2 (Sources/CLazyLoad/lazy_load.c says why): linked, it
   was loaded and relocated at every start, --help and the feed dumps included, which never parse
   HTML. One line per function called; a function missing here fails the link, naming it. */
#include "gumbo_guard.h"
#include "pulse_lazy_load.h"

static pulse_lazy_library gumbo_library = { .soname = "libgumbo.so.1", .package = "libgumbo1" };
#define GUMBO_FUNCTION(ret, name, params, args) PULSE_LAZY_FUNCTION(gumbo_library, ret, name, params, args)

GUMBO_FUNCTION(GumboOutput *, gumbo_parse_with_options, (const GumboOptions *o, const char *buffer, size_t length), (o, buffer, length))
GUMBO_FUNCTION(const char *, gumbo_normalized_tagname, (GumboTag tag), (tag))
GUMBO_FUNCTION(void, gumbo_tag_from_original_text, (GumboStringPiece *text), (text))

/* kGumboDefaultOptions is data, so it is looked up rather than forwarded. */
GumboOptions pulse_gumbo_default_options(void) {
    static void *volatile slot;
    return *(const GumboOptions *)pulse_lazy_symbol(&gumbo_library, &slot, "kGumboDefaultOptions");
}

void pulse_gumbo_load(void) { pulse_lazy_open(&gumbo_library); }
