/* The benchmark's ceiling: libxml2's streaming reader over the same bytes, nothing else.
 *
 * Usage: libxml2-stream [--touch] FILE...
 * Reads each file whole into memory (as pulse-ingest does), then runs xmlReaderForMemory +
 * xmlTextReaderRead to the end with the parser options pulse-ingest uses (NONET | COMPACT; no
 * entity substitution, no DTD loading). With --touch it also asks for each node's local name,
 * namespace and value, the least a feed walker must do, so the two variants bracket the cost of
 * the reader itself. Prints "nodes=N" to stderr; exits 1 if any document failed to read to the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

static void quiet(void *ctx, const xmlError *error) { (void)ctx; (void)error; }

static char *slurp(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)*size + 1);
    if (buf && fread(buf, 1, (size_t)*size, f) != (size_t)*size) { free(buf); buf = NULL; }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    int touch = 0, first = 1, failed = 0;
    unsigned long nodes = 0, sink = 0;
    if (argc > 1 && strcmp(argv[1], "--touch") == 0) { touch = 1; first = 2; }
    xmlInitParser();
    xmlSetStructuredErrorFunc(NULL, (xmlStructuredErrorFunc)quiet);
    for (int i = first; i < argc; i++) {
        long size = 0;
        char *buf = slurp(argv[i], &size);
        if (!buf) { fprintf(stderr, "%s: cannot read\n", argv[i]); failed = 1; continue; }
        xmlTextReaderPtr r = xmlReaderForMemory(buf, (int)size, argv[i], NULL,
                                                XML_PARSE_NONET | XML_PARSE_COMPACT);
        if (!r) { fprintf(stderr, "%s: no reader\n", argv[i]); failed = 1; free(buf); continue; }
        xmlTextReaderSetStructuredErrorHandler(r, (xmlStructuredErrorFunc)quiet, NULL);
        int ret;
        while ((ret = xmlTextReaderRead(r)) == 1) {
            nodes++;
            if (touch) {
                const xmlChar *name = xmlTextReaderConstLocalName(r);
                const xmlChar *ns = xmlTextReaderConstNamespaceUri(r);
                const xmlChar *value = xmlTextReaderConstValue(r);
                sink += (name ? name[0] : 0) + (ns ? ns[0] : 0) + (value ? value[0] : 0);
            }
        }
        if (ret != 0) { fprintf(stderr, "%s: XML error\n", argv[i]); failed = 1; }
        xmlFreeTextReader(r);
        free(buf);
    }
    fprintf(stderr, "nodes=%lu sink=%lu\n", nodes, sink);
    xmlCleanupParser();
    return failed;
}
