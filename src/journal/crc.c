/*
 * crc.c - table-driven CRC-32 (reflected polynomial 0xEDB88320).
 *
 * The 256-entry table is computed at compile time by a constant expression
 * per entry, so there is no lazy initialisation and no race between threads
 * that checksum at once.  Speed hardly matters: the journal checksums one
 * 64-byte record per chunk.
 */
#include "journal/crc.h"

#define NQ_CRC_POLY UINT32_C(0xEDB88320)

/* One shift-and-conditionally-xor step of the bitwise CRC. */
#define CRC_STEP(c) (((c) >> 1) ^ (((c) & 1u) ? NQ_CRC_POLY : 0u))
#define CRC_BYTE(b)                                                                         \
    CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP((uint32_t)(b)))))))))
#define CRC_ROW4(b) CRC_BYTE(b), CRC_BYTE((b) + 1), CRC_BYTE((b) + 2), CRC_BYTE((b) + 3)
#define CRC_ROW16(b) CRC_ROW4(b), CRC_ROW4((b) + 4), CRC_ROW4((b) + 8), CRC_ROW4((b) + 12)
#define CRC_ROW64(b) CRC_ROW16(b), CRC_ROW16((b) + 16), CRC_ROW16((b) + 32), CRC_ROW16((b) + 48)

static const uint32_t crc_table[256] = {
    CRC_ROW64(0), CRC_ROW64(64), CRC_ROW64(128), CRC_ROW64(192),
};

uint32_t nq_crc32(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    /* The standard CRC-32 starts from all ones and inverts the result;
     * inverting on entry too lets a caller chain calls. */
    crc = ~crc;
    for (size_t i = 0; i < len; i++)
        crc = (crc >> 8) ^ crc_table[(crc ^ p[i]) & 0xffu];
    return ~crc;
}
