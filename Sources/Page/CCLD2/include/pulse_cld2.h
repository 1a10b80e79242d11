// C face of the CLD2 shim: plain C types only, so Swift imports it without C++ interop.
#ifndef PULSE_CLD2_H
#define PULSE_CLD2_H

#ifdef __cplusplus
extern "C" {
#endif

/// Size of the buffer that receives CLD2's language code ("en", "zh-Hant", "un"), NUL included.
#define PULSE_CLD2_CODE_CAPACITY 8

/// Detects the language of `length` bytes of UTF-8 with no hints; `best_effort` non-zero sets
/// CLD2's best-effort flag (it then answers on very little text and calls that reliable).
/// Writes the summary language's code, its percent of the text (0-100), its normalized score,
/// whether CLD2 calls it reliable (0/1) and how many letter bytes CLD2 scored.
/// Returns 0 on success, 1 when the input is not valid UTF-8 (code "un"), -1 on bad arguments.
int pulse_cld2_detect(const char *utf8, int length, int is_plain_text, int best_effort,
                      char out_code[PULSE_CLD2_CODE_CAPACITY], int *percent,
                      double *normalized_score, int *is_reliable, int *text_bytes);

/// Number of entries in CLD2's language table, for enumerating every code it can return.
int pulse_cld2_language_count(void);

/// CLD2's code for table entry `index` (never NULL; "un" when out of range).
const char *pulse_cld2_language_code(int index);

#ifdef __cplusplus
}
#endif

#endif
