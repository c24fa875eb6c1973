/*
 * size.c - the parser of memory sizes on the command line (size.h).
 *
 * Integers only: a budget is a ceiling, and "1.5G" is as easily written
 * "1536M"; refusing fractions keeps one spelling of each size exact.
 */
#include <ctype.h>
#include <string.h>

#include "cli/size.h"

const char *nq_cli_parse_digits(const char *text, uint64_t *value)
{
    uint64_t v = 0;
    const char *p = text;
    for (; isdigit((unsigned char)*p); p++) {
        const unsigned digit = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return NULL;
        v = v * 10 + digit;
    }
    *value = v;
    return p;
}

int nq_cli_parse_size(const char *text, uint64_t *bytes)
{
    uint64_t v;
    const char *p = text ? nq_cli_parse_digits(text, &v) : NULL;
    if (!p || p == text)
        return -1;
    static const char suffixes[] = "KMGT";
    const char *s = *p ? strchr(suffixes, toupper((unsigned char)*p)) : NULL;
    if (s) {
        const int shift = 10 * (int)(s - suffixes + 1);
        if (v > UINT64_MAX >> shift)
            return -1;
        v <<= shift;
        p++;
        if (!strcmp(p, "iB"))
            p += 2;
    }
    if (!strcmp(p, "B"))
        p++;
    if (*p || v == 0)
        return -1;
    *bytes = v;
    return 0;
}
