/* libyaml, opened on first use like libxml2 (Sources/CLazyLoad/lazy_load.c says why):
   only `--check-config`, the service, `--once`, `--backfill` and `--prune` read feeds.yaml; the
   dump modes and `--help` never do, and linked it was loaded and relocated at their every start.
   One line per function YAMLTree calls. */
#include "CLibYAMLFunctions.h"
#include "pulse_lazy_load.h"

static pulse_lazy_library yaml_library = { .soname = "libyaml-0.so.2", .package = "libyaml-0-2" };
#define YAML_FUNCTION(ret, name, params, args) \
    PULSE_LAZY_FUNCTION_NAMED(yaml_library, ret, pulse_##name, #name, params, args)

YAML_FUNCTION(int, yaml_parser_initialize, (yaml_parser_t *parser), (parser))
YAML_FUNCTION(void, yaml_parser_delete, (yaml_parser_t *parser), (parser))
YAML_FUNCTION(void, yaml_parser_set_encoding, (yaml_parser_t *parser, yaml_encoding_t encoding), (parser, encoding))
YAML_FUNCTION(void, yaml_parser_set_input_string, (yaml_parser_t *parser, const unsigned char *input, size_t size),
              (parser, input, size))
YAML_FUNCTION(int, yaml_parser_parse, (yaml_parser_t *parser, yaml_event_t *event), (parser, event))
YAML_FUNCTION(void, yaml_event_delete, (yaml_event_t *event), (event))
