/* libxml2, opened on first use (Sources/CLazyLoad/lazy_load.c says why): with it come ICU,
   liblzma and zlib, about 1 ms of every start. `--help`, `--check-config` and the service's first
   seconds never parse XML, so they no longer pay for it. One line per function the Swift code
   calls; a function missing here fails the link, naming it. */
#include "../CLibXML2/shim.h"
#include "pulse_lazy_load.h"

static pulse_lazy_library xml_library = { .soname = "libxml2.so.2", .package = "libxml2" };
#define XML_FUNCTION(ret, name, params, args) PULSE_LAZY_FUNCTION(xml_library, ret, name, params, args)

XML_FUNCTION(void, xmlInitParser, (void), ())
XML_FUNCTION(void, xmlSetExternalEntityLoader, (xmlExternalEntityLoader f), (f))
XML_FUNCTION(int, xmlStrEqual, (const xmlChar *a, const xmlChar *b), (a, b))
XML_FUNCTION(xmlChar *, xmlStrdup, (const xmlChar *s), (s))
XML_FUNCTION(int, xmlStrlen, (const xmlChar *s), (s))
XML_FUNCTION(void, xmlFreeDoc, (xmlDocPtr d), (d))

XML_FUNCTION(xmlParserCtxtPtr, xmlCreatePushParserCtxt, (xmlSAXHandlerPtr sax, void *user, const char *chunk, int size, const char *filename), (sax, user, chunk, size, filename))
XML_FUNCTION(int, xmlCtxtUseOptions, (xmlParserCtxtPtr c, int options), (c, options))
XML_FUNCTION(int, xmlParseChunk, (xmlParserCtxtPtr c, const char *chunk, int size, int terminate), (c, chunk, size, terminate))
XML_FUNCTION(void, xmlStopParser, (xmlParserCtxtPtr c), (c))
XML_FUNCTION(void, xmlFreeParserCtxt, (xmlParserCtxtPtr c), (c))

XML_FUNCTION(htmlParserCtxtPtr, htmlCreateMemoryParserCtxt, (const char *buffer, int size), (buffer, size))
XML_FUNCTION(int, htmlCtxtUseOptions, (htmlParserCtxtPtr c, int options), (c, options))
XML_FUNCTION(int, htmlParseDocument, (htmlParserCtxtPtr c), (c))
XML_FUNCTION(void, htmlFreeParserCtxt, (htmlParserCtxtPtr c), (c))
XML_FUNCTION(const htmlEntityDesc *, htmlEntityLookup, (const xmlChar *name), (name))

XML_FUNCTION(xmlTextReaderPtr, xmlReaderForMemory, (const char *buffer, int size, const char *url, const char *encoding, int options), (buffer, size, url, encoding, options))
XML_FUNCTION(xmlTextReaderPtr, xmlReaderWalker, (xmlDocPtr d), (d))
XML_FUNCTION(void, xmlFreeTextReader, (xmlTextReaderPtr r), (r))
XML_FUNCTION(void, xmlTextReaderSetStructuredErrorHandler, (xmlTextReaderPtr r, xmlStructuredErrorFunc f, void *arg), (r, f, arg))
XML_FUNCTION(int, xmlTextReaderRead, (xmlTextReaderPtr r), (r))
XML_FUNCTION(int, xmlTextReaderNodeType, (xmlTextReaderPtr r), (r))
XML_FUNCTION(int, xmlTextReaderDepth, (xmlTextReaderPtr r), (r))
XML_FUNCTION(int, xmlTextReaderIsEmptyElement, (xmlTextReaderPtr r), (r))
XML_FUNCTION(int, xmlTextReaderMoveToAttribute, (xmlTextReaderPtr r, const xmlChar *name), (r, name))
XML_FUNCTION(int, xmlTextReaderMoveToElement, (xmlTextReaderPtr r), (r))
XML_FUNCTION(xmlNodePtr, xmlTextReaderCurrentNode, (xmlTextReaderPtr r), (r))
XML_FUNCTION(const xmlChar *, xmlTextReaderConstString, (xmlTextReaderPtr r, const xmlChar *s), (r, s))
XML_FUNCTION(const xmlChar *, xmlTextReaderConstValue, (xmlTextReaderPtr r), (r))
XML_FUNCTION(const xmlChar *, xmlTextReaderConstLocalName, (xmlTextReaderPtr r), (r))
XML_FUNCTION(const xmlChar *, xmlTextReaderConstNamespaceUri, (xmlTextReaderPtr r), (r))
XML_FUNCTION(const xmlChar *, xmlTextReaderConstBaseUri, (xmlTextReaderPtr r), (r))
XML_FUNCTION(const xmlChar *, xmlTextReaderConstXmlLang, (xmlTextReaderPtr r), (r))
