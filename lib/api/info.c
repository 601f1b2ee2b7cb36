/* SPDX-License-Identifier: BSD-3-Clause */
/* mx_get_info(): library, board and endpoint information. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/config.h"
#include "partners/naming.h"
#include "api/error.h"

_Static_assert(MXD_MAX_SEGMENTS == MX_MAX_SEGMENTS,
		"the engine takes MX_MAX_SEGMENTS segments per request");

static int
out_u32(void *out, uint32_t len, uint32_t v)
{
	if (out == NULL || len < sizeof(uint32_t))
		return -MX_BAD_INFO_LENGTH;
	memcpy(out, &v, sizeof(v));
	return 0;
}

static int
out_str(void *out, uint32_t len, const char *s)
{
	if (out == NULL || len < MX_MAX_STR_LEN)
		return -MX_BAD_INFO_LENGTH;
	memset(out, 0, MX_MAX_STR_LEN);
	snprintf(out, MX_MAX_STR_LEN, "%s", s);
	return 0;
}

static int
nic_ids(void *out, uint32_t len)
{
	uint64_t *ids = out;

	if (out == NULL || len < (mxd_lib.nboards + 1) * sizeof(uint64_t))
		return -MX_BAD_INFO_LENGTH;
	for (unsigned i = 0; i < mxd_lib.nboards; i++)
		ids[i] = mxd_lib.boards[i]->nic_id;
	ids[mxd_lib.nboards] = 0;
	return 0;
}

static int
counters_labels(void *out, uint32_t len)
{
	char *o = out;

	if (out == NULL || len < MXD_C_MAX * MX_MAX_STR_LEN)
		return -MX_BAD_INFO_LENGTH;
	for (unsigned c = 0; c < MXD_C_MAX; c++)
		out_str(o + c * MX_MAX_STR_LEN, MX_MAX_STR_LEN,
				mxd_counter_name(c));
	return 0;
}

static int
counters_values(struct mxd_board *b, void *out, uint32_t len)
{
	uint32_t *v = out;

	if (out == NULL || len < MXD_C_MAX * sizeof(uint32_t))
		return -MX_BAD_INFO_LENGTH;
	mxd_board_in_use(b);
	for (unsigned c = 0; c < MXD_C_MAX; c++)
		v[c] = (uint32_t)b->counters[c];
	return 0;
}

static uint32_t
board_speed(const struct mxd_board *b)
{
	uint32_t s = 0;

	for (unsigned i = 0; i < b->nports; i++)
		s += b->port[i]->ops->speed_mbps(b->port[i]);
	return s;
}

static int
board_info(struct mxd_board *b, mx_get_info_key_t key, void *out,
		uint32_t len)
{
	char s[MX_MAX_STR_LEN];

	switch (key) {
	case MX_COUNTERS_COUNT:
		return out_u32(out, len, MXD_C_MAX);
	case MX_COUNTERS_LABELS:
		return counters_labels(out, len);
	case MX_COUNTERS_VALUES:
		return counters_values(b, out, len);
	case MX_PRODUCT_CODE:
		snprintf(s, sizeof(s), "mx-dpdk %s", b->port[0]->driver);
		return out_str(out, len, s);
	case MX_PART_NUMBER:
		return out_str(out, len, b->port[0]->name);
	case MX_SERIAL_NUMBER:
		return out_u32(out, len, (uint32_t)b->nic_id);
	case MX_PORT_COUNT:
		return out_u32(out, len, b->nports);
	case MX_NUMA_NODE:
		return out_u32(out, len, (uint32_t)b->port[0]->numa_node);
	case MX_NET_TYPE:
		return out_u32(out, len, MX_NET_ETHER);
	case MX_LINE_SPEED:
		return out_u32(out, len, board_speed(b));
	default:
		return -MX_BAD_INFO_KEY;
	}
}

static int
get_info(mx_endpoint_t ep, mx_get_info_key_t key, const void *in,
		uint32_t in_len, void *out, uint32_t out_len)
{
	struct mxd_board *b = ep ? ep->board : mxd_lib.boards[0];
	uint32_t board;

	switch (key) {
	case MX_NIC_COUNT:
		return out_u32(out, out_len, mxd_lib.nboards);
	case MX_NIC_IDS:
		return nic_ids(out, out_len);
	case MX_MAX_NATIVE_ENDPOINTS:
		return out_u32(out, out_len, MX_MAX_ENDPOINTS);
	case MX_NATIVE_REQUESTS:
		return out_u32(out, out_len, MXD_WIN);
	case MX_PIO_SEND_MAX:
		return out_u32(out, out_len, b->frag_max);
	case MX_COPY_SEND_MAX:
		return out_u32(out, out_len, b->eager_max);
	case MX_MAX_SEGMENTS_KEY_1_0:	/* the MX 1.0 text's key */
	case MX_MAX_SEGMENTS_KEY:	/* MX 1.2's constant, as a key */
		return out_u32(out, out_len, MX_MAX_SEGMENTS);
	default:
		break;
	}
	if (in != NULL && in_len >= sizeof(uint32_t)) {
		memcpy(&board, in, sizeof(board));
		if (board >= mxd_lib.nboards)
			return -MX_BOARD_UNKNOWN;
		b = mxd_lib.boards[board];
	}
	return board_info(b, key, out, out_len);
}

static mx_return_t
do_get_info(mx_endpoint_t ep, mx_get_info_key_t key, void *in_val,
		uint32_t in_len, void *out_val, uint32_t out_len)
{
	int ret;

	/* The endpoint is optional, but one given must be open: a closed
	 * one (or any after mx_finalize) is neither read nor given to
	 * mxd_error, which would read its handler. */
	if (!mxd_lib.initialized)
		return mxd_error(NULL, MX_NOT_INITIALIZED,
				"mx_get_info: not initialized");
	if (ep != NULL && !mxd_ep_live(ep))
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_get_info: bad endpoint");
	ret = get_info(ep, key, in_val, in_len, out_val, out_len);
	if (ret < 0)
		return mxd_error(ep, (mx_return_t)-ret, "mx_get_info: key %d",
				(int)key);
	return MX_SUCCESS;
}

/* ---- mx-dpdk extensions (mx_extensions.h) ------------------------------- */


#define MAX_SETTINGS 32

static struct mxd_setting settings[MAX_SETTINGS];
static struct mxd_config preview;

static mx_return_t
do_dpdk_get_setting(uint32_t index, mx_dpdk_setting_t *s)
{
	const struct mxd_config *c = &mxd_conf;
	unsigned n;

	if (!mxd_lib.initialized) {
		if (mxd_config_load(&preview) < 0)
			return mxd_error(NULL, MX_BAD_PARAM_VAL,
					"mx_dpdk_get_setting: bad setting");
		c = &preview;
	}
	n = mxd_config_describe(c, settings, MAX_SETTINGS);
	if (s == NULL || index >= n)
		return mxd_error(NULL, MX_BAD_INFO_VAL,
				"mx_dpdk_get_setting: no setting %u", index);
	s->name = settings[index].name;
	s->value = settings[index].value;
	s->help = settings[index].help;
	return MX_SUCCESS;
}

static mx_return_t
do_dpdk_get_port(uint32_t board, uint32_t port, mx_dpdk_port_t *info)
{
	struct mxd_link *l;

	if (!mxd_lib.initialized || board >= mxd_lib.nboards)
		return mxd_error(NULL, MX_BOARD_UNKNOWN,
				"mx_dpdk_get_port: no board %u", board);
	if (info == NULL || port >= mxd_lib.boards[board]->nports)
		return mxd_error(NULL, MX_BAD_INFO_VAL,
				"mx_dpdk_get_port: no port %u", port);
	l = mxd_lib.boards[board]->port[port];
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", l->name);
	snprintf(info->driver, sizeof(info->driver), "%s", l->driver);
	memcpy(info->mac, l->mac, sizeof(info->mac));
	info->mtu = l->mtu;
	info->link_up = (uint32_t)l->ops->link_up(l);
	info->speed_mbps = l->ops->speed_mbps(l);
	info->numa_node = l->numa_node;
	l->ops->stats(l, &info->tx_frames, &info->rx_frames);
	return MX_SUCCESS;
}

static void
board_shared(const struct mxd_board *b, mx_dpdk_board_t *info)
{
	const struct mxd_host *h = b->host;
	unsigned sw = 0;

	info->mode = MX_DPDK_BOARD_SHARED;
	info->slots = h->nslots;
	info->slot = b->slot;
	info->service_pid = h->service_pid;
	for (unsigned s = 0; s < h->nslots && s < MX_DPDK_BOARD_SLOTS; s++) {
		info->slot_state[s] = (uint8_t)__atomic_load_n(
				&h->slot[s].state, __ATOMIC_ACQUIRE);
		info->slot_pid[s] = info->slot_state[s] ?
			__atomic_load_n(&h->slot[s].pid, __ATOMIC_RELAXED) : 0;
	}
	for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++) {
		uint32_t s = __atomic_load_n(&h->ep_slot[e], __ATOMIC_ACQUIRE);

		info->endpoint_slot[e] = s < h->nslots ? (uint8_t)s :
			MX_DPDK_BOARD_NONE;
	}
	for (unsigned p = 0; p < h->nports; p++)
		sw += h->port[p].mode == MXD_SHPORT_SWITCHED;
	if (sw == h->nports)
		snprintf(info->mechanism, sizeof(info->mechanism), "shared "
				"through the board service (pid %d): its ports "
				"switched by the service, each process on rings "
				"of its own", (int)h->service_pid);
	else if (sw != 0)
		snprintf(info->mechanism, sizeof(info->mechanism), "shared "
				"through the board service (pid %d): memif queue "
				"matrix %u x %u, its other ports switched",
				(int)h->service_pid, h->nslots, h->nslots);
	else
		snprintf(info->mechanism, sizeof(info->mechanism), "shared "
				"through the board service (pid %d): memif queue "
				"matrix %u x %u, each process on queues of its "
				"own", (int)h->service_pid, h->nslots,
				h->nslots);
}

static mx_return_t
do_dpdk_get_board(uint32_t board, mx_dpdk_board_t *info)
{
	const struct mxd_board *b;

	if (!mxd_lib.initialized || board >= mxd_lib.nboards || info == NULL)
		return mxd_error(NULL, MX_BOARD_UNKNOWN,
				"mx_dpdk_get_board: no board %u", board);
	b = mxd_lib.boards[board];
	memset(info, 0, sizeof(*info));
	info->endpoints = MX_MAX_ENDPOINTS;
	if (b->host != NULL) {
		board_shared(b, info);
		return MX_SUCCESS;
	}
	info->mode = MX_DPDK_BOARD_EXCLUSIVE;
	info->slots = 1;
	info->slot_pid[0] = (int32_t)getpid();
	info->slot_state[0] = 1;
	for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++)
		info->endpoint_slot[e] = b->ep[e] != NULL ? 0 :
			MX_DPDK_BOARD_NONE;
	snprintf(info->mechanism, sizeof(info->mechanism), "exclusive: this "
			"process owns the ports (MX_BOARD_SHARED=1 shares "
			"them with the processes of the host)");
	return MX_SUCCESS;
}

/* ---- entry points: the library lock around each call (lock.h) ---- */

MXD_ENTRY(mx_get_info, do_get_info,
	(mx_endpoint_t ep, mx_get_info_key_t key, void *in_val,
		uint32_t in_len, void *out_val, uint32_t out_len),
	(ep, key, in_val, in_len, out_val, out_len))

MXD_ENTRY(mx_dpdk_get_setting, do_dpdk_get_setting,
	(uint32_t index, mx_dpdk_setting_t *s),
	(index, s))

MXD_ENTRY(mx_dpdk_get_port, do_dpdk_get_port,
	(uint32_t board, uint32_t port, mx_dpdk_port_t *info),
	(board, port, info))

MXD_ENTRY(mx_dpdk_get_board, do_dpdk_get_board,
	(uint32_t board, mx_dpdk_board_t *info),
	(board, info))

static mx_return_t
do_dpdk_get_peer(uint32_t index, uint64_t *nic_id, char *name)
{
	const struct mxd_peer *p = mxd_lib.initialized ?
		mxd_naming_get(index) : NULL;

	if (p == NULL || nic_id == NULL || name == NULL)
		return mxd_error(NULL, MX_BAD_INFO_VAL,
				"mx_dpdk_get_peer: no peer %u", index);
	*nic_id = p->nic_id;
	snprintf(name, MX_MAX_HOSTNAME_LEN, "%s", p->name);
	return MX_SUCCESS;
}

MXD_ENTRY(mx_dpdk_get_peer, do_dpdk_get_peer,
	(uint32_t index, uint64_t *nic_id, char *name),
	(index, nic_id, name))
