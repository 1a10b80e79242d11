#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/HTMLparser.h>

/* xmlFree is a global function-pointer variable, which Swift 6 strict concurrency rejects;
   this forwarder calls it from C. */
static inline void pulse_xml_free(void *p) { xmlFree(p); }
