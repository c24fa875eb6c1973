/*
 * crc.h - CRC-32 (the IEEE 802.3 polynomial, reflected), the checksum that
 * guards each checkpoint journal record.
 *
 * CRC-32 is chosen over a general hash because it guarantees what a journal
 * needs: every error confined to one byte, and every burst up to 32 bits,
 * changes the checksum, so a flipped byte is never taken for valid data.
 */
#ifndef NQ_CRC_H
#define NQ_CRC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 of len bytes at data.  Pass 0 as crc to start; pass a previous
 * result to continue over more bytes.  Thread-safe. */
uint32_t nq_crc32(uint32_t crc, const void *data, size_t len);

#endif /* NQ_CRC_H */
