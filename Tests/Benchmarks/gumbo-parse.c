/* The extraction benchmark's floor: gumbo's own parse of each page named on the command line (read,
   parse, walk the tree once counting elements, free), in one process, as pulse-ingest's
   `--dump-article` does before any analysis. Compiled by article-extract.sh; never shipped. */
#include <gumbo.h>
#include <stdio.h>
#include <stdlib.h>

static size_t count_elements(const GumboNode *node) {
    if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) return 0;
    size_t total = 1;
    const GumboVector *children = &node->v.element.children;
    for (unsigned i = 0; i < children->length; i++) total += count_elements(children->data[i]);
    return total;
}

int main(int argc, char **argv) {
    size_t elements = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (!file) { failed++; continue; }
        fseek(file, 0, SEEK_END);
        long size = ftell(file);
        fseek(file, 0, SEEK_SET);
        char *bytes = malloc((size_t)size + 1);
        size_t got = fread(bytes, 1, (size_t)size, file);
        fclose(file);
        GumboOutput *output = gumbo_parse_with_options(&kGumboDefaultOptions, bytes, got);
        elements += count_elements(output->root);
        gumbo_destroy_output(&kGumboDefaultOptions, output);
        free(bytes);
    }
    printf("%d pages, %zu elements, %d unreadable\n", argc - 1 - failed, elements, failed);
    return failed ? 1 : 0;
}
