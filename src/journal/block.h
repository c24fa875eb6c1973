/*
 * block.h - the journal's 64-byte blocks as they lie on disk: the header
 * and record layouts, their little-endian fields and the CRC-32 that closes
 * each block.  Kept apart from journal.c and load.c, which decide what the
 * blocks mean (resume, damage, locking), so that the on-disk format is read in one
 * place; docs/journal-format.md describes the same layout.
 */
#ifndef NQ_JOURNAL_BLOCK_H
#define NQ_JOURNAL_BLOCK_H

#include <stdint.h>

#include "core/engine.h"
#include "nqueens/nqueens.h"

#define NQ_JOURNAL_MAGIC "NQJOURNL"
/* Version 3 binds each record to its job (the identity under its
 * checksum); version 2 records held 8 reserved zero bytes there, and
 * version 1 records a node count. */
#define NQ_JOURNAL_VERSION 3u
#define NQ_JOURNAL_BLOCK 64u /* header and record size */
#define NQ_JOURNAL_CRC_AT 60u /* the checksum covers the 60 bytes before it */
#define NQ_JOURNAL_REC_CHUNK UINT32_C(0x4b4e4843) /* "CHNK" as little-endian bytes */
#define NQ_JOURNAL_REC_DONE UINT32_C(0x454e4f44)  /* "DONE" */
#define NQ_JOURNAL_FLAG_VERIFIED 1u /* record flags: the chunk's two counts agreed */

/* Fields of a header, decoded. */
typedef struct nq_journal_header {
    uint32_t version, header_size, n, engine, split, record_size;
    uint64_t units, identity, chunk_units;
} nq_journal_header;

/* Little-endian fields, byte by byte so that any host writes the same file. */
static inline void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline void put128(unsigned char *p, nq_u128 v)
{
    put64(p, (uint64_t)v);
    put64(p + 8, (uint64_t)(v >> 64));
}

static inline nq_u128 get128(const unsigned char *p)
{
    return ((nq_u128)get64(p + 8) << 64) | get64(p);
}

/* Writes the header block of a journal of `job` cut into chunks of
 * chunk_units units into b[0 .. NQ_JOURNAL_BLOCK). */
void nq_journal_encode_header(unsigned char *b, const nq_job *job, uint64_t chunk_units);

/* Decodes a header block.  Returns 0, or NQ_EJOURNAL_CORRUPT with a reason
 * in *why when the block is not a journal header at all. */
int nq_journal_decode_header(const unsigned char *b, nq_journal_header *h, const char **why);

/* Writes a record block: its type (NQ_JOURNAL_REC_CHUNK or NQ_JOURNAL_REC_DONE), flags, chunk,
 * counts and the job identity its checksum is keyed by. */
void nq_journal_encode_record(unsigned char *b, uint32_t type, uint32_t flags, uint64_t chunk,
                              const nq_counts *c, uint64_t identity);

#endif /* NQ_JOURNAL_BLOCK_H */
