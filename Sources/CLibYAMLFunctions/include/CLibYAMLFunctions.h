#ifndef PULSE_LIBYAML_FUNCTIONS_H
#define PULSE_LIBYAML_FUNCTIONS_H

/* libyaml, opened on first use: the functions YAMLTree calls, each forwarding to libyaml's own
   (`pulse_yaml_parser_parse` to `yaml_parser_parse`, and so on). Prefixed, because the config
   tests also link Yams' copy of libyaml, whose functions carry libyaml's names. */
#include <yaml.h>

int pulse_yaml_parser_initialize(yaml_parser_t *parser);
void pulse_yaml_parser_delete(yaml_parser_t *parser);
void pulse_yaml_parser_set_encoding(yaml_parser_t *parser, yaml_encoding_t encoding);
void pulse_yaml_parser_set_input_string(yaml_parser_t *parser, const unsigned char *input, size_t size);
int pulse_yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event);
void pulse_yaml_event_delete(yaml_event_t *event);

#endif
