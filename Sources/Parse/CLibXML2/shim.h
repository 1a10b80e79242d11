#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU, so its encoding.h includes ICU's headers, whose UErrorCode
   clashes with the newer ICU bundled in Swift's Foundation whenever one compiler instance sees
   both. We never touch ICU converters, and xmlCharEncodingHandler (whose tail holds the ICU
   fields) is only ever used through pointers libxml2 owns, so hiding ICU is safe. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>

/* xmlFree is a global function-pointer variable, which Swift 6 strict concurrency rejects;
   this forwarder calls it from C. */
static inline void pulse_xml_free(void *p) { xmlFree(p); }
