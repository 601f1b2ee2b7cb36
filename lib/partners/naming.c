/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Board names and NIC ids: "<host>:<board>" <-> MAC of the board's first
 * port.  The table is filled from three sources: our own boards, the
 * peers file (MX_PEERS_FILE, lines "<name> <mac>"), and DISCOVER frames.
 *
 * Discovery: a board that wants a name it does not know broadcasts a query
 * on its ports; the board of that name answers to the asker.  Every
 * DISCOVER frame also announces its sender, so both sides learn each other
 * and the port and MAC through which the other is reached.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "partners/naming.h"
#include "partners/xmit.h"

static struct mxd_peer peers[MXD_MAX_PEERS];
static unsigned npeers;

static const uint8_t bcast[MXD_ETH_ALEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

void
mxd_naming_init(void)
{
	memset(peers, 0, sizeof(peers));
	npeers = 0;
}

static struct mxd_peer *
find_nic(uint64_t nic)
{
	for (unsigned i = 0; i < npeers; i++)
		if (peers[i].nic_id == nic)
			return &peers[i];
	return NULL;
}

void
mxd_naming_add(uint64_t nic, const char *name, int link,
		const uint8_t mac[MXD_ETH_ALEN])
{
	struct mxd_peer *p = find_nic(nic);

	if (p == NULL) {
		if (npeers == MXD_MAX_PEERS)
			return;
		p = &peers[npeers++];
		p->nic_id = nic;
	}
	if (name != NULL && *name != '\0')
		snprintf(p->name, sizeof(p->name), "%s", name);
	if (link >= 0 && link < MXD_GLUE_MAX_PORTS) {
		p->seen |= 1u << link;
		memcpy(p->mac[link], mac, MXD_ETH_ALEN);
	}
}

static int
parse_mac(const char *s, uint8_t mac[MXD_ETH_ALEN])
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
				&v[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -1;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

int
mxd_naming_load_file(const char *path)
{
	char line[256], name[MX_MAX_HOSTNAME_LEN], mac_s[64];
	uint8_t mac[MXD_ETH_ALEN];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (f == NULL) {
		MXD_LOG(ERR, naming, "MX_PEERS_FILE %s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "%79s %63s", name, mac_s) != 2 ||
				parse_mac(mac_s, mac) < 0) {
			MXD_LOG(ERR, naming, "%s:%d: expected \"<host>:<board> "
					"<mac>\"", path, lineno);
			fclose(f);
			return -1;
		}
		mxd_naming_add(mxd_mac_to_nic(mac), name, -1, NULL);
	}
	fclose(f);
	return 0;
}

const struct mxd_peer *
mxd_naming_by_nic(uint64_t nic)
{
	return find_nic(nic);
}

const struct mxd_peer *
mxd_naming_by_name(const char *name)
{
	for (unsigned i = 0; i < npeers; i++)
		if (!strcmp(peers[i].name, name))
			return &peers[i];
	return NULL;
}

unsigned
mxd_naming_count(void)
{
	return npeers;
}

const struct mxd_peer *
mxd_naming_get(unsigned i)
{
	return i < npeers ? &peers[i] : NULL;
}

static void
disc_send(struct mxd_board *b, unsigned port, const uint8_t *dst,
		const char *want)
{
	struct mxd_hdr_args a = { .type = MXD_T_DISCOVER };
	struct mxd_frame f;

	if (mxd_xmit_start(b, port, 0, dst, &a, sizeof(struct mxd_disc_hdr),
				&f) < 0)
		return;
	mxd_wire_put_disc(f.data + MXD_HDRS_LEN, b->nic_id, want != NULL,
			b->name, want);
	mxd_xmit_send(b, port, 0, &f);
	mxd_count(b, MXD_C_DISCOVERY);
}

void
mxd_naming_announce(struct mxd_board *b, const char *want)
{
	for (unsigned p = 0; p < b->nports; p++)
		disc_send(b, p, bcast, want);
	mxd_board_flush(b);
}

/* Another board with our NIC id (MAC): nothing can reach either. */
static void
nic_collision(struct mxd_board *b, const struct mxd_pkt *pkt)
{
	if (b->nic_collision++ == 0)
		MXD_LOG(WARNING, naming, "board %s: peer \"%s\" has the same "
				"NIC id %012llx (MAC); give the ports distinct "
				"MACs (memif: mac=...)", b->name,
				pkt->u.disc.name, (unsigned long long)b->nic_id);
}

void
mxd_naming_rx(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt)
{
	if (pkt->u.disc.src_nic == b->nic_id) {
		/* Our own broadcast looped back, or a clash of MACs. */
		if (strcmp(pkt->u.disc.name, b->name) != 0)
			nic_collision(b, pkt);
		return;
	}
	mxd_naming_add(pkt->u.disc.src_nic, pkt->u.disc.name,
			(int)b->link_index[port], pkt->eth->src);
	if (pkt->u.disc.query && !strcmp(pkt->u.disc.want, b->name))
		disc_send(b, port, pkt->eth->src, NULL);
}

void
mxd_naming_query(const char *name)
{
	for (unsigned i = 0; i < mxd_lib.nboards; i++)
		mxd_naming_announce(mxd_lib.boards[i], name);
}
