/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * End-to-end integrity check of a frame.
 *
 * Ethernet's FCS is checked by NICs but not by virtual ports, and it does
 * not cover a frame's trip through host memory, so every MX frame carries
 * its own check (the common header's csum field): the CRC-32C
 * (Castagnoli) of the frame, which detects every error of 1 to 3 bits and
 * every burst of up to 32 bits in frames of any size MX sends.
 *
 * With SSE4.2 the CRC runs in three independent chains over three thirds
 * of the frame, which keeps the CPU's CRC unit busy, and the thirds are
 * joined with one carry-less multiply each (PCLMUL), so the result is the
 * same CRC-32C as computed byte by byte; without them, slicing-by-8 tables
 * give the same values.  With AVX-512 and VPCLMULQDQ, 64-byte vectors are
 * folded with carry-less multiplies instead (1.6 times the rate of the
 * crc32 chains here), and only the last bytes (under 16) go through
 * crc32.  The words read for the CRC can be stored elsewhere on the way,
 * which makes copy and check one pass.
 */
#ifndef MXD_CSUM_H
#define MXD_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of len bytes (initial value and final xor ~0, as iSCSI). */
uint32_t mxd_csum(const uint8_t *p, size_t len);

/*
 * The same CRC in pieces: a register starts at MXD_CRC_INIT, takes bytes
 * in order, and ~register is the CRC of them all.  mxd_crc_copy also
 * copies the bytes from src to dst in the same pass (the buffers must not
 * overlap), so data that is copied anyway is checked for the price of
 * the check alone.
 */
#define MXD_CRC_INIT	0xffffffffu
uint32_t mxd_crc_update(uint32_t c, const uint8_t *p, size_t len);
/* The same over p[0, len) with the 4 bytes at 'hole' read as zero (a
 * frame's own check field), in one call; hole + 4 <= len. */
uint32_t mxd_crc_update_hole(uint32_t c, const uint8_t *p, size_t len,
		size_t hole);
uint32_t mxd_crc_copy(uint32_t c, uint8_t *dst, const uint8_t *src,
		size_t len);
/*
 * A frame's check: the register from MXD_CRC_INIT over frame[0, len)
 * with the 4 bytes of the check's own field (at MXD_CRC_FIELD: wire.h's
 * csum) read as zero; the frame carries its complement.  The same for a
 * frame whose field is zero still (one being sealed).  One call through
 * the implementation's pointer, straight through a short frame's header
 * (every small message's, every ack's); len >= MXD_CRC_FIELD + 4.
 */
#define MXD_CRC_FIELD	42
extern uint32_t (*mxd_crc_frame_fn)(const uint8_t *frame, size_t len);
static inline uint32_t
mxd_crc_frame(const uint8_t *frame, size_t len)
{
	return mxd_crc_frame_fn(frame, len);
}
/* The register after 4 bytes, given as their little-endian word (by
 * table, whatever the implementation: for a lone word, where a call
 * through the implementation's pointer costs more than the word). */
uint32_t mxd_crc_word(uint32_t c, uint32_t w);
/*
 * mxd_crc_copy with dst written around the caches (non-temporal stores,
 * where the CPU has them with AVX-512; elsewhere a plain copy): for a
 * destination that is too large to be in cache when it is read (a large
 * receive), which then costs no read of each line before it is written.
 * Such stores are not ordered with later ones: mxd_crc_store_fence()
 * before another thread may read dst.
 */
uint32_t mxd_crc_copy_nt(uint32_t c, uint8_t *dst, const uint8_t *src,
		size_t len);
void mxd_crc_store_fence(void);

/* The portable version, for tests that compare the two. */
uint32_t mxd_csum_sw(const uint8_t *p, size_t len);

/*
 * Which implementation runs.  The fastest this CPU has is picked at load:
 * AVX-512 carry-less-multiply folding (VPCLMULQDQ), else the crc32
 * instruction in three chains (SSE4.2 + PCLMUL), else slicing-by-8 tables.
 * For tests, to run each one; not to be called while frames are checked.
 * Returns 0, or -1 if this CPU lacks it.
 */
enum mxd_crc_impl { MXD_CRC_PORTABLE, MXD_CRC_SSE42, MXD_CRC_AVX512 };
int mxd_crc_use(enum mxd_crc_impl impl);

#endif /* MXD_CSUM_H */
