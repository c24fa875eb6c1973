/*
 * block.c - encoding and decoding the journal's header and record blocks
 * (see block.h for the layout's one definition).
 */
#include <string.h>

#include "journal/block.h"
#include "journal/crc.h"

void nq_journal_encode_header(unsigned char *b, const nq_job *job, uint64_t chunk_units)
{
    memset(b, 0, NQ_JOURNAL_BLOCK);
    memcpy(b, NQ_JOURNAL_MAGIC, 8);
    put32(b + 8, NQ_JOURNAL_VERSION);
    put32(b + 12, NQ_JOURNAL_BLOCK);
    put32(b + 16, (uint32_t)job->n);
    put32(b + 20, (uint32_t)job->ops->id);
    put32(b + 24, (uint32_t)job->split_depth);
    put32(b + 28, NQ_JOURNAL_BLOCK);
    put64(b + 32, job->units);
    put64(b + 40, job->identity);
    put64(b + 48, chunk_units);
    put32(b + NQ_JOURNAL_CRC_AT, nq_crc32(0, b, NQ_JOURNAL_CRC_AT));
}

int nq_journal_decode_header(const unsigned char *b, nq_journal_header *h, const char **why)
{
    if (memcmp(b, NQ_JOURNAL_MAGIC, 8) != 0) {
        *why = "not a checkpoint journal (no journal header)";
        return NQ_EJOURNAL_CORRUPT;
    }
    if (get32(b + NQ_JOURNAL_CRC_AT) != nq_crc32(0, b, NQ_JOURNAL_CRC_AT)) {
        *why = "journal header is damaged (checksum mismatch)";
        return NQ_EJOURNAL_CORRUPT;
    }
    h->version = get32(b + 8);
    h->header_size = get32(b + 12);
    h->n = get32(b + 16);
    h->engine = get32(b + 20);
    h->split = get32(b + 24);
    h->record_size = get32(b + 28);
    h->units = get64(b + 32);
    h->identity = get64(b + 40);
    h->chunk_units = get64(b + 48);
    return 0;
}

void nq_journal_encode_record(unsigned char *b, uint32_t type, uint32_t flags, uint64_t chunk,
                              const nq_counts *c, uint64_t identity)
{
    memset(b, 0, NQ_JOURNAL_BLOCK);
    put32(b, type);
    put32(b + 4, flags);
    put64(b + 8, chunk);
    put128(b + 16, c->total);
    put128(b + 32, c->unique);
    put64(b + 48, identity);
    put32(b + NQ_JOURNAL_CRC_AT, nq_crc32(0, b, NQ_JOURNAL_CRC_AT));
}
