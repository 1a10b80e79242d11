// The only C++ in pulse-ingest: forwards to CLD2's C++ API behind extern "C" functions.
#include "pulse_cld2.h"

// <cstdio> first: the CLD2 header uses FILE without including it.
#include <cstdio>
#include <cstring>

#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

#include "pulse_lazy_load.h"

namespace {

// libcld2 is opened on first use, like libxml2 (Sources/CLazyLoad/lazy_load.c says why): linked,
// it and libcld2_full (6 MB of tables) were loaded and relocated at every start, --help and the
// feed dumps included. libcld2_full (the ~160-language tables only) is opened first, RTLD_GLOBAL,
// so its tables take precedence over libcld2's small built-in ones, as the link order
// -lcld2_full -lcld2 made them (DetectionTests.fullTablesLoaded checks languages only they
// have). The functions are C++, so they are looked up by their mangled names; each pointer keeps
// the type of the declaration in CLD2's header.
pulse_lazy_library cld2Library = {"libcld2.so.0", "libcld2-0", nullptr, "libcld2_full.so.0"};

template <typename Function>
Function lazyFunction(void *volatile *slot, const char *mangledName) {
    return reinterpret_cast<Function>(pulse_lazy_symbol(&cld2Library, slot, mangledName));
}

CLD2::Language detectSummary(const char *buffer, int bufferLength, bool isPlainText, const CLD2::CLDHints *hints,
                             int flags, CLD2::Language *language3, int *percent3, double *normalizedScore3,
                             CLD2::ResultChunkVector *chunks, int *textBytes, bool *isReliable,
                             int *validPrefixBytes) {
    static void *volatile slot;
    return lazyFunction<decltype(&CLD2::ExtDetectLanguageSummaryCheckUTF8)>(
        &slot, "_ZN4CLD233ExtDetectLanguageSummaryCheckUTF8EPKcibPKNS_8CLDHintsEiPNS_8LanguageEPiPdPSt6vectorINS_"
               "11ResultChunkESaISA_EES7_PbS7_")(buffer, bufferLength, isPlainText, hints, flags, language3,
                                                  percent3, normalizedScore3, chunks, textBytes, isReliable,
                                                  validPrefixBytes);
}

const char *languageCode(CLD2::Language language) {
    static void *volatile slot;
    return lazyFunction<decltype(&CLD2::LanguageCode)>(&slot, "_ZN4CLD212LanguageCodeENS_8LanguageE")(language);
}

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
        const CLD2::Language summary = detectSummary(
            utf8, length, is_plain_text != 0, &hints, best_effort != 0 ? CLD2::kCLDFlagBestEffort : 0,
            language3, percent3, scores3, nullptr, &bytes, &reliable, &validPrefix);
        if (validPrefix < length) {
            return 1;
        }
        copyCode(languageCode(summary), out_code);
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
    const char *code = languageCode(static_cast<CLD2::Language>(index));
    return code != nullptr ? code : "un";
}

extern "C" void pulse_cld2_load(void) {
    pulse_lazy_open(&cld2Library);
}
