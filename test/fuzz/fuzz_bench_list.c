/*
 * fuzz_bench_list.c - libFuzzer target: nqueens-bench's number lists
 * ("14-17", "1,2,4", "1,4-6") and integers (bench/list.c).
 *
 * The first byte picks the range (board sizes 1..32 or thread counts
 * 1..4096), the rest is the text.  Besides the sanitizers' checks, the
 * contract is checked: a list accepted is non-empty, within the range,
 * strictly ascending and no longer than BENCH_MAX_LIST; a refusal is one
 * non-empty line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const long lo = 1, hi = data[0] & 1 ? NQ_MAX_THREADS : NQ_MAX_N;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    bench_list list;
    char err[256] = "";
    if (bench_parse_list(text, lo, hi, "value", &list, err, sizeof err) == 0) {
        if (list.count < 1 || list.count > BENCH_MAX_LIST)
            abort();
        for (int i = 0; i < list.count; i++)
            if (list.values[i] < lo || list.values[i] > hi ||
                (i && list.values[i] <= list.values[i - 1]))
                abort();
    } else if (!err[0] || strchr(err, '\n')) {
        abort();
    }
    int value;
    if (bench_parse_int(text, strlen(text), lo, hi, &value) == 0 && (value < lo || value > hi))
        abort();
    free(text);
    return 0;
}
