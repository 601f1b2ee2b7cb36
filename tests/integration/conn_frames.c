/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a pcap file of three connect frames, built and sealed by the
 * wire code itself, for dissector.sh: a request from slot 3 of a shared
 * board, the reply of slot 5 of another, and a request from a process
 * that owns its board (no slot said).
 *
 *   conn_frames FILE
 */
#include <stdio.h>
#include <string.h>

#include "wire.h"

static void
record(FILE *f, const uint8_t *frame, uint32_t len)
{
	uint32_t rec[4] = { 1, 0, len, len };	/* time, length, length */

	fwrite(rec, sizeof(rec), 1, f);
	fwrite(frame, len, 1, f);
}

static uint32_t
conn(uint8_t *frame, uint8_t type, uint8_t caps, uint8_t status)
{
	static const uint8_t a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
	static const uint8_t b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
	struct mxd_hdr_args h = {
		.type = type, .src_ep = 1, .dst_ep = 2,
		.dst_peer = type == MXD_T_CONN_REQ ? MXD_NO_PEER : 7,
		.src_peer = 7, .filter = 0x5ead, .src_session = 0x1234,
		.dst_session = type == MXD_T_CONN_REQ ? 0 : 0x5678,
	};

	memset(frame, 0, 128);
	mxd_wire_put_hdr(frame, b, a, &h, sizeof(struct mxd_conn_hdr));
	mxd_wire_put_conn(frame + MXD_HDRS_LEN, 0x02000000000aull,
			0x02000000000bull, 9, 0x5ead, status, 1, 1500, caps);
	mxd_wire_seal(frame);
	return MXD_HDRS_LEN + sizeof(struct mxd_conn_hdr);
}

int
main(int argc, char **argv)
{
	/* pcap: magic, version 2.4, zone, accuracy, snap length, Ethernet */
	uint32_t hdr[6] = { 0xa1b2c3d4u, 0x00040002u, 0, 0, 65535, 1 };
	uint8_t caps = MXD_CAP_PACK | MXD_CAP_FRAGS | MXD_CAP_EPOCH;
	uint8_t frame[128];
	FILE *f;

	if (argc != 2 || (f = fopen(argv[1], "wb")) == NULL)
		return 2;
	fwrite(hdr, sizeof(hdr), 1, f);
	record(f, frame, conn(frame, MXD_T_CONN_REQ, caps |
				mxd_caps_of_slot(3, 1), 0));
	record(f, frame, conn(frame, MXD_T_CONN_REP, caps |
				mxd_caps_of_slot(5, 1), MXD_CONN_OK));
	record(f, frame, conn(frame, MXD_T_CONN_REQ, caps, 0));
	return fclose(f) == 0 ? 0 : 1;
}
