// The only C++ in pulse-ingest: forwards to CLD2's C++ API behind extern "C" functions.
#include "pulse_cld2.h"

// <cstdio> first: the CLD2 header uses FILE without including it.
#include <cstdio>
#include <cstring>

#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

namespace {

void copyCode(const char *code, char out[PULSE_CLD2_CODE_CAPACITY]) {
    std::strncpy(out, code != nullptr ? code : "un", PULSE_CLD2_CODE_CAPACITY - 1);
    out[PULSE_CLD2_CODE_CAPACITY - 1] = '\0';
}

}  // namespace

extern "C" int pulse_cld2_detect(const char *utf8, int length, int is_plain_text, int best_effort,
                                 char out_code[PULSE_CLD2_CODE_CAPACITY], int *percent,
                                 double *normalized_score, int *is_reliable, int *text_bytes) {
    if (out_code == nullptr || percent == nullptr || normalized_score == nullptr ||
        is_reliable == nullptr || text_bytes == nullptr || length < 0 ||
        (utf8 == nullptr && length > 0)) {
        return -1;
    }
    copyCode("un", out_code);
    *percent = 0;
    *normalized_score = 0.0;
    *is_reliable = 0;
    *text_bytes = 0;
    if (length == 0) {
        return 0;
    }

    // No hints on purpose: CLD2 scores es/pt/gl as one close set, and a hint for one member
    // makes it answer that member for the others.
    const CLD2::CLDHints hints = {nullptr, nullptr, CLD2::UNKNOWN_ENCODING, CLD2::UNKNOWN_LANGUAGE};
    CLD2::Language language3[3];
    int percent3[3] = {0, 0, 0};
    double scores3[3] = {0.0, 0.0, 0.0};
    int bytes = 0;
    bool reliable = false;
    int validPrefix = length;
    // CLD2 itself does not throw; the guard only keeps any C++ exception from crossing into C.
    try {
        const CLD2::Language summary = CLD2::ExtDetectLanguageSummaryCheckUTF8(
            utf8, length, is_plain_text != 0, &hints, best_effort != 0 ? CLD2::kCLDFlagBestEffort : 0,
            language3, percent3, scores3, nullptr, &bytes, &reliable, &validPrefix);
        if (validPrefix < length) {
            return 1;
        }
        copyCode(CLD2::LanguageCode(summary), out_code);
        // The summary language is usually language3[0] but CLD2 may promote a runner-up.
        for (int i = 0; i < 3; ++i) {
            if (language3[i] == summary) {
                *percent = percent3[i];
                *normalized_score = scores3[i];
                break;
            }
        }
        *is_reliable = reliable ? 1 : 0;
        *text_bytes = bytes;
        return 0;
    } catch (...) {
        copyCode("un", out_code);
        return -1;
    }
}

extern "C" int pulse_cld2_language_count(void) {
    return static_cast<int>(CLD2::NUM_LANGUAGES);
}

extern "C" const char *pulse_cld2_language_code(int index) {
    if (index < 0 || index >= static_cast<int>(CLD2::NUM_LANGUAGES)) {
        return "un";
    }
    const char *code = CLD2::LanguageCode(static_cast<CLD2::Language>(index));
    return code != nullptr ? code : "un";
}
