/*
 * fuzz_journal.c - libFuzzer target: opening a checkpoint journal
 * (nq_journal_open, nq_journal_peek) of whatever bytes the file holds.
 *
 * The journal is for one fixed small job (N=8, mirror, split depth 2).  The
 * first input byte picks how the rest becomes the file, so that the fuzzer
 * gets past the checksums to the records' meaning:
 *   0  the bytes as they are;
 *   1  a valid header for the job, then the bytes;
 *   2  as 1, with every whole 64-byte record after the header given the
 *      job's identity and its CRC made right.
 * Besides the sanitizers' checks, what an accepted journal says is
 * checked: no more units resumed than the job has, done flags agreeing
 * with them, and a completed journal has every chunk.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/plan.h"
#include "journal/crc.h"
#include "journal/journal.h"

#define BLOCK 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static nq_job *job;
static uint64_t chunk_units;
static char path[64];

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The header docs/journal-format.md describes, for the job. */
static void header(unsigned char *b)
{
    memset(b, 0, BLOCK);
    memcpy(b, "NQJOURNL", 8);
    put32(b + 8, 3);
    put32(b + 12, BLOCK);
    put32(b + 16, (uint32_t)job->n);
    put32(b + 20, (uint32_t)job->ops->id);
    put32(b + 24, (uint32_t)job->split_depth);
    put32(b + 28, BLOCK);
    put64(b + 32, job->units);
    put64(b + 40, job->identity);
    put64(b + 48, chunk_units);
    put32(b + 60, nq_crc32(0, b, 60));
}

static void setup(void)
{
    if (nq_plan_job(&job, 8, NQ_ENGINE_MIRROR, 1, 2, 0) < 0)
        abort();
    chunk_units = nq_plan_durable_chunk_units(job);
    snprintf(path, sizeof path, "/tmp/nq_fuzz_journal.%ld", (long)getpid());
}

/* Checks what an opened journal claims about itself. */
static void check(const nq_journal *j)
{
    const uint64_t chunks = nq_journal_chunks(j);
    const unsigned char *done = nq_journal_done(j);
    uint64_t finished = 0, units = 0;
    for (uint64_t c = 0; c < chunks; c++)
        if (done[c]) {
            finished++;
            const uint64_t end = (c + 1) * chunk_units < job->units ? (c + 1) * chunk_units
                                                                    : job->units;
            units += end - c * chunk_units;
        }
    if (units != nq_journal_resumed_units(j) || units > job->units)
        abort();
    if (nq_journal_is_complete(j) && finished != chunks)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!job)
        setup();
    if (size == 0)
        return 0;
    const int mode = data[0] % 3;
    const size_t prefix = mode ? BLOCK : 0, len = prefix + size - 1;
    unsigned char *file = malloc(len + 1);
    if (!file)
        return 0;
    if (mode)
        header(file);
    memcpy(file + prefix, data + 1, size - 1);
    for (size_t r = BLOCK; mode == 2 && r + BLOCK <= len; r += BLOCK) {
        put64(file + r + 48, job->identity);
        put32(file + r + 60, nq_crc32(0, file + r, 60));
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(file, 1, len, f) != len || fclose(f) != 0)
        abort();
    free(file);

    int n;
    enum nq_engine engine;
    int split;
    nq_journal_peek(path, &n, &engine, &split);
    nq_journal *j = NULL;
    char detail[NQ_JOURNAL_DETAIL_MAX];
    if (nq_journal_open(&j, path, job, chunk_units, NULL, NULL, detail, sizeof detail) == 0) {
        check(j);
        nq_journal_close(&j);
    } else if (!detail[0] || strchr(detail, '\n')) {
        abort(); /* a refusal is one line that says something */
    }
    unlink(path);
    return 0;
}
