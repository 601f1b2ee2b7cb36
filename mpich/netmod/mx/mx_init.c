/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start and end of the netmod, business cards, and VCs: how a VC gets its
 * MX address (a non-blocking mx_iconnect on first send, sends queued
 * meanwhile) and how it terminates (once its sends are done, never
 * blocking).
 *
 * Each rank opens one endpoint on the first board of its process.  Which
 * DPDK port that is comes from the MX_* environment, which the netmod
 * expands per rank before mx_init() (see expand_env): one mpiexec line
 * gives every rank its own port.
 */
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

#include "mx_impl.h"

/* Every rank of every job of this netmod uses this filter: dynamic
 * processes must be able to connect to each other. */
#define MXN_FILTER 0x4d504931u	/* "MPI1" */

struct mxn_global mxn;

static int parse_card(const char *bc, MPIDI_VC_t *vc);
static void default_hostname(int rank);
static void route_to(const char *bc, uint64_t nic);

MPIDI_Comm_ops_t mxn_comm_ops = {
	.recv_posted = MPID_nem_mx_recv_posted,
	.send = MPID_nem_mx_send,
	.rsend = MPID_nem_mx_send,	/* a ready send may be a standard one */
	.ssend = MPID_nem_mx_ssend,
	.isend = MPID_nem_mx_send,	/* the same: both return a request */
	.irsend = MPID_nem_mx_send,
	.issend = MPID_nem_mx_ssend,
	.cancel_send = MPID_nem_mx_cancel_send,
	.cancel_recv = MPID_nem_mx_cancel_recv,
	.iprobe = MPID_nem_mx_iprobe,
	.improbe = MPID_nem_mx_improbe,
	.imrecv = MPID_nem_mx_imrecv,
};

MPID_nem_netmod_funcs_t MPIDI_nem_mx_funcs = {
	.init = MPID_nem_mx_init,
	.finalize = MPID_nem_mx_finalize,
	.poll = MPID_nem_mx_poll,
	.get_business_card = MPID_nem_mx_get_business_card,
	.connect_to_root = MPID_nem_mx_connect_to_root,
	.vc_init = MPID_nem_mx_vc_init,
	.vc_destroy = MPID_nem_mx_vc_destroy,
	.vc_terminate = MPID_nem_mx_vc_terminate,
	.anysource_iprobe = MPID_nem_mx_anysource_iprobe,
	.anysource_improbe = MPID_nem_mx_anysource_improbe,
	.get_ordering = MPID_nem_mx_get_ordering,
};

/* ---- errors --------------------------------------------------------------- */

/* An MPI error code for a failed MX call. */
int
mxn_error(const char *what, mx_return_t rc)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: %s", what, mx_strerror(rc));
	return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
			__func__, __LINE__, MPI_ERR_OTHER, "**fail",
			"**fail %s", msg);
}

/* An MPI error code for a failed request (MPI_SUCCESS for a good one). */
int
mxn_status_error(const mx_status_t *st)
{
	char msg[160];

	if (st->code == MX_STATUS_SUCCESS)
		return MPI_SUCCESS;
	snprintf(msg, sizeof(msg), "MX request failed: %s",
			mx_strstatus(st->code));
	return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
			__func__, __LINE__, MPIX_ERR_PROC_FAILED, "**fail",
			"**fail %s", msg);
}

/* ---- per-rank settings ------------------------------------------------------ */

/* Appends the expansion of "%c" to out; returns the new length or -1. */
static int
expand_one(char c, int rank, int size, char *out, size_t len, size_t max)
{
	int n;

	switch (c) {
	case 'r':
		n = snprintf(out + len, max - len, "%d", rank);
		break;
	case 'x':
		n = snprintf(out + len, max - len, "%02x", rank & 0xff);
		break;
	case 's':
		n = snprintf(out + len, max - len, "%d", size);
		break;
	case 'R':	/* memif pairs: the first rank serves */
		n = snprintf(out + len, max - len, "%s",
				rank == 0 ? "server" : "client");
		break;
	case '%':
		n = snprintf(out + len, max - len, "%%");
		break;
	default:	/* not ours (MX_FAULTS="drop=1%"): as it is */
		n = snprintf(out + len, max - len, "%%%c", c);
		break;
	}
	return n < 0 || (size_t)n >= max - len ? -1 : (int)(len + n);
}

/* value with %r %x %s %R %% expanded into out (any other % stays as it
 * is); 0, or -1 if it does not fit. */
static int
expand(const char *value, int rank, int size, char *out, size_t max)
{
	size_t len = 0;

	for (const char *p = value; *p != '\0'; p++) {
		int n;

		if (*p != '%') {
			if (len + 1 >= max)
				return -1;
			out[len++] = *p;
			continue;
		}
		if (p[1] == '\0') {	/* a final % stays */
			if (len + 1 >= max)
				return -1;
			out[len++] = '%';
			break;
		}
		n = expand_one(*++p, rank, size, out, len, max);
		if (n < 0)
			return -1;
		len = (size_t)n;
	}
	out[len] = '\0';
	return 0;
}

/*
 * mpiexec gives every rank the same environment; each rank needs its own
 * DPDK port (and MAC, and board name).  Every MX_* variable is expanded
 * here, before mx_init() reads them: %r is the rank, %x the rank as two
 * hex digits, %s the job size, %R "server" on rank 0 and "client"
 * elsewhere (a memif pair), %% a percent sign; any other % is left alone.
 */
static int
expand_env(int rank, int size)
{
	extern char **environ;
	char name[64], out[4096];
	int n = 0;

	for (char **e = environ; *e != NULL; e++)
		n++;
	/* Copy the names first: setenv() may move environ. */
	char (*names)[64] = MPL_malloc(n * sizeof(*names) + 1, MPL_MEM_OTHER);

	if (names == NULL)
		return MPI_ERR_NO_MEM;
	n = 0;
	for (char **e = environ; *e != NULL; e++) {
		const char *eq = strchr(*e, '=');

		if (strncmp(*e, "MX_", 3) == 0 && eq != NULL &&
				strchr(eq, '%') != NULL &&
				(size_t)(eq - *e) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%.*s",
					(int)(eq - *e), *e);
	}
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s", names[i]);
		if (expand(getenv(name), rank, size, out, sizeof(out)) < 0) {
			MPL_free(names);
			return MPIR_Err_create_code(MPI_SUCCESS,
					MPIR_ERR_RECOVERABLE, __func__,
					__LINE__, MPI_ERR_OTHER, "**fail",
					"**fail %s", "an MX_* variable is too long "
					"once expanded");
		}
		setenv(name, out, 1);
	}
	MPL_free(names);
	return MPI_SUCCESS;
}

/*
 * Library settings MPI needs other than the library's defaults, unless the
 * user set them: a rank may compute for long without entering MPI, and
 * MX must not take it for dead meanwhile (MPI has no use for a lost peer:
 * the launcher reports a rank that died).  The MX NIC answered for the
 * process; without MX_PROGRESS_THREAD=1 nobody does here.
 */
static void
default_settings(int rank)
{
	if (getenv("MX_PEER_TIMEOUT_MS") == NULL)
		setenv("MX_PEER_TIMEOUT_MS", "0", 1);
	default_hostname(rank);
}

/* Ranks of one host would all be "<host>:0": give each its own name. */
static void
default_hostname(int rank)
{
	char host[64], name[96];

	if (getenv("MX_HOSTNAME") != NULL)
		return;
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "mpi");
	host[sizeof(host) - 1] = '\0';
	snprintf(name, sizeof(name), "%s-r%d", host, rank);
	setenv("MX_HOSTNAME", name, 1);
}

/* ---- init and finalize ---------------------------------------------------------- */

/*
 * mx_init() in every rank; a memif client must find its server up, so
 * when the ports are memif ones rank 0 (the server, %R) starts first.
 */
static int
start_library(int rank)
{
	const char *args = getenv("MX_DPDK_ARGS");
	int ordered = args != NULL && strstr(args, "net_memif") != NULL;
	mx_return_t rc = MX_SUCCESS;
	int mpi_errno;

	if (ordered && rank != 0) {
		mpi_errno = MPIR_pmi_barrier();
		if (mpi_errno)
			return mpi_errno;
	}
	rc = mx_init();
	if (ordered && rank == 0) {
		mpi_errno = MPIR_pmi_barrier();	/* even on failure */
		if (mpi_errno)
			return mpi_errno;
	}
	return rc == MX_SUCCESS ? MPI_SUCCESS : mxn_error("mx_init", rc);
}

static int
open_endpoint(void)
{
	mx_param_t param;
	mx_endpoint_addr_t addr;
	mx_return_t rc;

	/* Tell MX where the context id lives (MX 1.0 spec, III.3). */
	param.key = MX_PARAM_CONTEXT_ID;
	param.val.context_id.bits = 16;
	param.val.context_id.shift = MXN_CTX_SHIFT;
	rc = mx_open_endpoint(MX_ANY_NIC, MX_ANY_ENDPOINT, MXN_FILTER, &param,
			1, &mxn.ep);
	if (rc != MX_SUCCESS)
		return mxn_error("mx_open_endpoint", rc);
	mxn.filter = MXN_FILTER;
	rc = mx_get_endpoint_addr(mxn.ep, &addr);
	if (rc == MX_SUCCESS)
		rc = mx_decompose_endpoint_addr(addr, &mxn.nic_id, &mxn.ep_id);
	if (rc == MX_SUCCESS &&
			mx_nic_id_to_hostname(mxn.nic_id, mxn.name) != MX_SUCCESS)
		mxn.name[0] = '\0';
	if (rc == MX_SUCCESS && mx_get_info(NULL, MX_COPY_SEND_MAX, NULL, 0,
				&mxn.eager_max, sizeof(mxn.eager_max)) !=
			MX_SUCCESS)
		mxn.eager_max = 0;	/* no send is reaped at once */
	if (rc == MX_SUCCESS)
		rc = mx_register_unexp_handler(mxn.ep, mxn_unexp_handler, NULL);
	return rc == MX_SUCCESS ? MPI_SUCCESS : mxn_error("endpoint", rc);
}

/*
 * Every rank gets the MX address of every other rank of its group that is
 * not on its node (those talk through Nemesis's shared memory) during
 * MPI_Init, and no pair ever connects both ways: rank i connects to each
 * higher rank j and then sends j a HELLO, from which j takes i's address
 * (MX answers a message's source without a connect).  Every VC of the
 * world group starts connected: a first message pays no connect, and the
 * connects of a job overlap.
 *
 * This began as a WORKAROUND: an mx-dpdk library without connect epochs
 * took a peer whose connect request crossed ours, after we had sent on the
 * connection, for restarted, and failed our sends with
 * MX_STATUS_ENDPOINT_UNREACHABLE.  The library now numbers its state per
 * partner (an epoch in CONN_REQ/REP) and lazy connects both ways work
 * (MPICH_MX_LAZY_CONNECT=1: each VC connects on its first send).
 *
 * Nobody waits in a PMI call here once connects start: a rank blocked
 * outside MX would not answer a peer's connect retries.  Rank j leaves
 * only with the HELLO of every lower rank, sent after that rank's connect
 * to j completed; the HELLO sends are not waited for (their acks come
 * later, through the poll).
 */
/*
 * MPI_Init goes on with PMI barriers, where nobody polls MX: stay a while
 * (many retransmission timeouts) so that a peer whose last frame or ack
 * was lost gets its answer from us before we stop listening.
 */
static void
linger(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		mx_progress(mxn.ep);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
			(t.tv_nsec - t0.tv_nsec) < 100000000L);
}

static int
connect_all(MPIDI_PG_t *pg, int rank)
{
	static struct mxn_op hello_op = { MXN_OP_HELLO };
	int mpi_errno = MPI_SUCCESS, n = pg->size;
	int max = MPIR_pmi_max_val_size(), left;
	mx_request_t *req = NULL, hello;
	char key[32], *bc = NULL, *p;
	MPIDI_VC_t tmp;
	mx_return_t rc;

	mxn.addrs = MPL_calloc(n, sizeof(*mxn.addrs), MPL_MEM_ADDRESS);
	mxn.addr_ok = MPL_calloc(n, 1, MPL_MEM_ADDRESS);
	req = MPL_calloc(n, sizeof(*req), MPL_MEM_ADDRESS);
	bc = MPL_malloc(max, MPL_MEM_ADDRESS);
	if (mxn.addrs == NULL || mxn.addr_ok == NULL || req == NULL ||
			bc == NULL) {
		mpi_errno = MPI_ERR_NO_MEM;
		goto out;
	}
	/* The HELLOs of lower ranks, posted before anyone knows our card.
	 * A rank of this node talks through Nemesis's shared memory, not
	 * the netmod: neither side connects. */
	for (int r = 0; r < rank; r++) {
		if (MPID_NEM_IS_LOCAL(r))
			continue;
		rc = mx_irecv(mxn.ep, NULL, 0, MXN_KIND(MXN_KIND_HELLO) |
				(uint64_t)r << MXN_SRC_SHIFT,
				MX_MATCH_MASK_NONE, NULL, &req[r]);
		if (rc != MX_SUCCESS) {
			mpi_errno = mxn_error("mx_irecv", rc);
			goto out;
		}
	}
	p = bc;
	left = max;
	bc[0] = '\0';
	mpi_errno = MPID_nem_mx_get_business_card(rank, &p, &left);
	snprintf(key, sizeof(key), "mxnm-%d", rank);
	if (mpi_errno == MPI_SUCCESS)
		mpi_errno = MPIR_pmi_kvs_put(key, bc);
	if (mpi_errno == MPI_SUCCESS)
		mpi_errno = MPIR_pmi_barrier();
	for (int r = rank + 1; r < n && mpi_errno == MPI_SUCCESS; r++) {
		if (MPID_NEM_IS_LOCAL(r))
			continue;
		snprintf(key, sizeof(key), "mxnm-%d", r);
		mpi_errno = MPIR_pmi_kvs_get(r, key, bc, max);
		if (mpi_errno == MPI_SUCCESS)
			mpi_errno = parse_card(bc, &tmp);
		if (mpi_errno)
			break;
		route_to(bc, VC_MX(&tmp)->nic_id);
		rc = mx_iconnect(mxn.ep, VC_MX(&tmp)->nic_id,
				VC_MX(&tmp)->ep_id, mxn.filter, 0, NULL,
				&req[r]);
		if (rc != MX_SUCCESS)
			mpi_errno = mxn_error("mx_iconnect", rc);
	}
	/* Connects and HELLOs run together; each waits 20 s at most. */
	for (int r = 0; r < n; r++) {
		mx_status_t st;
		uint32_t done = 0;

		if (req[r] == NULL)
			continue;
		mx_wait(mxn.ep, &req[r], 20000, &st, &done);
		if (!done) {
			uint32_t gone = 0;

			mx_cancel(mxn.ep, &req[r], &gone);
			if (!gone)
				mx_forget(mxn.ep, &req[r]);
		}
		if (!done || st.code != MX_STATUS_SUCCESS) {
			if (mpi_errno == MPI_SUCCESS)
				mpi_errno = done ? mxn_status_error(&st) :
					mxn_error("MPI_Init: no answer from a "
							"rank", MX_TIMEOUT);
			continue;
		}
		mxn.addrs[r] = st.source;
		mxn.addr_ok[r] = 1;
		if (r > rank) {
			rc = mx_isend(mxn.ep, NULL, 0, st.source,
					MXN_KIND(MXN_KIND_HELLO) |
					(uint64_t)rank << MXN_SRC_SHIFT,
					&hello_op, &hello);
			if (rc != MX_SUCCESS && mpi_errno == MPI_SUCCESS)
				mpi_errno = mxn_error("mx_isend", rc);
		}
	}
	linger();
out:
	MPL_free(req);
	MPL_free(bc);
	return mpi_errno;
}

int
MPID_nem_mx_init(MPIDI_PG_t *pg_p, int pg_rank, char **bc_val_p,
		int *val_max_sz_p)
{
	int mpi_errno = MPI_SUCCESS;

	MPL_COMPILE_TIME_ASSERT(sizeof(struct mxn_req) <=
			MPIDI_NEM_REQ_NETMOD_AREA_LEN);
	MPL_COMPILE_TIME_ASSERT(sizeof(struct mxn_vc) <=
			MPIDI_NEM_VC_NETMOD_AREA_LEN);
	/* Context ids, ranks and tags must fit their match fields. */
	MPL_COMPILE_TIME_ASSERT(MPIR_CONTEXT_ID_BITS <= 16);
	MPIR_ERR_CHKANDJUMP1(pg_p->size > 0xffff, mpi_errno, MPI_ERR_OTHER,
			"**fail", "**fail %s", "mx netmod: over 65535 ranks");

	memset(&mxn, 0, sizeof(mxn));
	mxn.pg = pg_p;
	mxn.rank = pg_rank;
	MPIDI_PG_IdToNum(pg_p, &mxn.pgnum);
	mpi_errno = expand_env(pg_rank, pg_p->size);
	MPIR_ERR_CHECK(mpi_errno);
	default_settings(pg_rank);
	mx_set_error_handler(MX_ERRORS_RETURN);
	mpi_errno = start_library(pg_rank);
	MPIR_ERR_CHECK(mpi_errno);
	mpi_errno = open_endpoint();
	MPIR_ERR_CHECK(mpi_errno);
	if (getenv("MPICH_MX_LAZY_CONNECT") == NULL ||
			atoi(getenv("MPICH_MX_LAZY_CONNECT")) == 0) {
		mpi_errno = connect_all(pg_p, pg_rank);
		MPIR_ERR_CHECK(mpi_errno);
	}

	MPIR_Process.tag_bits = MXN_TAG_BITS;
	mpi_errno = MPIDI_CH3I_Register_anysource_notification(
			MPID_nem_mx_anysource_posted,
			MPID_nem_mx_anysource_matched);
	MPIR_ERR_CHECK(mpi_errno);
	MPIDI_Anysource_iprobe_fn = MPID_nem_mx_anysource_iprobe;
	MPIDI_Anysource_improbe_fn = MPID_nem_mx_anysource_improbe;

	mpi_errno = MPID_nem_mx_get_business_card(pg_rank, bc_val_p,
			val_max_sz_p);
fn_exit:
	return mpi_errno;
fn_fail:
	goto fn_exit;
}

int
MPID_nem_mx_finalize(void)
{
	/* Closing lingers (MX_CLOSE_LINGER_MS) until what we sent is
	 * acknowledged: the last close packets are not lost. */
	if (mxn.ep != NULL)
		mx_close_endpoint(mxn.ep);
	mxn.ep = NULL;
	mx_finalize();
	MPL_free(mxn.addrs);
	MPL_free(mxn.addr_ok);
	mxn.addrs = NULL;
	mxn.addr_ok = NULL;
	return MPI_SUCCESS;
}

int
MPID_nem_mx_get_ordering(int *ordering)
{
	/* Packet chunks of a VC reach ch3 in the order they were sent. */
	*ordering = 1;
	return MPI_SUCCESS;
}

/* ---- business cards --------------------------------------------------------------- */

#define MXN_BC_NIC "mx_nic"
#define MXN_BC_EP "mx_ep"
#define MXN_BC_NAME "mx_name"	/* board name, for route_to() */

int
MPID_nem_mx_get_business_card(int my_rank, char **bc_val_p,
		int *val_max_sz_p)
{
	char nic[32];
	int rc;

	(void)my_rank;
	snprintf(nic, sizeof(nic), "%" PRIx64, mxn.nic_id);
	rc = MPL_str_add_string_arg(bc_val_p, val_max_sz_p, MXN_BC_NIC, nic);
	if (rc == MPL_SUCCESS)
		rc = MPL_str_add_int_arg(bc_val_p, val_max_sz_p, MXN_BC_EP,
				(int)mxn.ep_id);
	if (rc == MPL_SUCCESS && mxn.name[0] != '\0')
		rc = MPL_str_add_string_arg(bc_val_p, val_max_sz_p,
				MXN_BC_NAME, mxn.name);
	if (rc == MPL_SUCCESS)
		return MPI_SUCCESS;
	return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
			__func__, __LINE__, MPI_ERR_OTHER,
			rc == MPL_ERR_STR_NOMEM ? "**buscard_len" : "**buscard",
			NULL);
}

static int
parse_card(const char *bc, MPIDI_VC_t *vc)
{
	char nic[32];
	int ep;

	if (MPL_str_get_string_arg(bc, MXN_BC_NIC, nic, sizeof(nic)) !=
			MPL_SUCCESS ||
			MPL_str_get_int_arg(bc, MXN_BC_EP, &ep) != MPL_SUCCESS)
		return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
				__func__, __LINE__, MPI_ERR_OTHER,
				"**business_card", "**business_card %s", bc);
	VC_MX(vc)->nic_id = strtoull(nic, NULL, 16);
	VC_MX(vc)->ep_id = (uint32_t)ep;
	VC_MX(vc)->card_known = 1;
	return MPI_SUCCESS;
}

/*
 * A connect request to a NIC the library has not located yet goes out of
 * every port as a broadcast (before main 2dffc6c it named only the
 * endpoint id, and every board of the segment with such an endpoint took
 * it, answered, and kept a partner for us).  Resolving the
 * peer's board name first (a discovery exchange, mx_hostname_to_nic_id)
 * tells the library where the NIC is, and the request goes to it alone.
 * (The library before its connect epochs took such a request, marked
 * "fresh", as the requester having restarted, and ended its live partner
 * for it: a rank already talking to the requester saw its sends fail
 * with MX_STATUS_ENDPOINT_UNREACHABLE.  This made four ranks on a bridge
 * work then.)
 */
static void
route_to(const char *bc, uint64_t nic)
{
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t found;

	if (MPL_str_get_string_arg(bc, MXN_BC_NAME, name, sizeof(name)) !=
			MPL_SUCCESS)
		return;
	if (mx_hostname_to_nic_id(name, &found) == MX_SUCCESS &&
			found != nic)
		MPL_internal_error_printf("mx netmod: board name %s is %"
				PRIx64 ", not %" PRIx64 " (MX_HOSTNAME the "
				"same in two ranks?)\n", name, found, nic);
}

/* The peer's card, from the process group's key-value space. */
static int
vc_card(MPIDI_VC_t *vc)
{
	int mpi_errno, max = MPIR_pmi_max_val_size();
	char *bc = MPL_malloc(max, MPL_MEM_ADDRESS);

	if (bc == NULL)
		return MPI_ERR_NO_MEM;
	mpi_errno = vc->pg->getConnInfo(vc->pg_rank, bc, max, vc->pg);
	if (mpi_errno == MPI_SUCCESS)
		mpi_errno = parse_card(bc, vc);
	if (mpi_errno == MPI_SUCCESS)
		route_to(bc, VC_MX(vc)->nic_id);
	MPL_free(bc);
	return mpi_errno;
}

/* ---- VCs ---------------------------------------------------------------------------- */

int
MPID_nem_mx_vc_init(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);

	memset(v, 0, sizeof(*v));
	v->op.kind = MXN_OP_CONNECT;
	v->state = MXN_VC_IDLE;
	vc->sendNoncontig_fn = MPID_nem_mx_SendNoncontig;
	vc->ch.iStartContigMsg = MPID_nem_mx_iStartContigMsg;
	vc->ch.iSendContig = MPID_nem_mx_iSendContig;
	vc->ch.iSendIov = MPID_nem_mx_iSendIov;
	vc->ch.next = NULL;
	vc->ch.prev = NULL;
	vc->comm_ops = &mxn_comm_ops;
	/*
	 * MPI messages reach us without ch3 seeing the VC, so ch3 would not
	 * know which peers we talked to: every VC is active, and each pair
	 * runs the close protocol at MPI_Finalize (as ch3:nemesis:ofi does).
	 */
	MPIDI_CHANGE_VC_STATE(vc, ACTIVE);
	if (vc->pg == mxn.pg && mxn.addr_ok != NULL &&
			mxn.addr_ok[vc->pg_rank]) {	/* see connect_all */
		v->addr = mxn.addrs[vc->pg_rank];
		v->state = MXN_VC_CONNECTED;
	}
	return MPI_SUCCESS;
}

static void
cm_unlink(MPIDI_VC_t *vc)
{
	for (MPIDI_VC_t **p = &mxn.cm_vcs; *p != NULL;
			p = &VC_MX(*p)->cm_next) {
		if (*p == vc) {
			*p = VC_MX(vc)->cm_next;
			return;
		}
	}
}

int
MPID_nem_mx_vc_destroy(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);

	/* Nemesis destroys every VC through the netmod, those of its node
	 * too, whose netmod area vc_init() never saw (shared memory's). */
	if (vc->ch.is_local)
		return MPI_SUCCESS;
	if (v->cm)
		cm_unlink(vc);
	while (v->rx_head != NULL) {	/* chunks nobody will read */
		struct mxn_chunk *c = v->rx_head;

		v->rx_head = c->next;
		if (c->done)
			MPL_free(c);
		else
			c->vc = NULL;	/* mxn_chunk_done() frees it */
	}
	v->rx_tail = NULL;
	return MPI_SUCCESS;
}

/* The VC is back where vc_init() left it, its MX address kept: MX has
 * no connection to close. */
static int
vc_terminated(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);

	if (v->terminate)
		mxn.nterm--;
	v->terminate = 0;
	return MPIDI_CH3U_Handle_connection(vc, MPIDI_VC_EVENT_TERMINATED);
}

int
MPID_nem_mx_vc_terminate(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);

	if (vc->state != MPIDI_VC_STATE_CLOSED) {
		/* A failure, not the close protocol: what waits for the
		 * connection will never go. */
		int err = MPIR_Err_create_code(MPI_SUCCESS,
				MPIR_ERR_RECOVERABLE, __func__, __LINE__,
				MPIX_ERR_PROC_FAILED, "**comm_fail",
				"**comm_fail %d", vc->pg_rank);

		mxn_fail_queue(vc, err);
	}
	if (v->sends == 0)
		return vc_terminated(vc);
	/* Sends still going: MPID_nem_mx_poll() finishes the job. */
	v->terminate = 1;
	mxn.nterm++;
	return MPI_SUCCESS;
}

/* One of the VC's sends completed. */
int
mxn_vc_send_done(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);

	v->sends--;
	if (v->terminate && v->sends == 0)
		return vc_terminated(vc);
	return MPI_SUCCESS;
}

/* Starts the MX connection of a VC (its first send). */
int
mxn_vc_connect(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);
	mx_request_t req;
	mx_return_t rc;
	int mpi_errno;

	if (!v->card_known) {
		mpi_errno = vc->pg != NULL ? vc_card(vc) : MPI_ERR_OTHER;
		if (mpi_errno)
			return mpi_errno;
	}
	v->state = MXN_VC_CONNECTING;
	rc = mx_iconnect(mxn.ep, v->nic_id, v->ep_id, mxn.filter, 0, &v->op,
			&req);
	if (rc != MX_SUCCESS) {
		v->state = MXN_VC_FAILED;
		return mxn_error("mx_iconnect", rc);
	}
	return MPI_SUCCESS;	/* its completion is reaped by the poll */
}

/* The mx_iconnect of vc completed: send what waited, or fail it. */
int
mxn_vc_connected(MPIDI_VC_t *vc, const mx_status_t *st)
{
	struct mxn_vc *v = VC_MX(vc);
	int mpi_errno = MPI_SUCCESS;

	if (st->code != MX_STATUS_SUCCESS) {
		v->state = MXN_VC_FAILED;
		v->error = mxn_status_error(st);
		mxn_fail_queue(vc, v->error);
		return MPI_SUCCESS;
	}
	v->addr = st->source;
	v->state = MXN_VC_CONNECTED;
	while (v->q_head != NULL && mpi_errno == MPI_SUCCESS) {
		MPIR_Request *sreq = v->q_head;

		v->q_head = REQ_MX(sreq)->qnext;
		if (v->q_head == NULL)
			v->q_tail = NULL;
		v->sends--;		/* mxn_post_send counts it again */
		mpi_errno = mxn_post_send(sreq);
	}
	return mpi_errno;
}

/* ---- packet streams: who sent a chunk ---------------------------------------------- */

static MPIDI_VC_t *
cm_find(int port_name_tag)
{
	for (MPIDI_VC_t *vc = mxn.cm_vcs; vc != NULL; vc = VC_MX(vc)->cm_next)
		if (vc->port_name_tag == port_name_tag)
			return vc;
	return NULL;
}

/* The VC whose peer sent a PKT chunk with this match value, or NULL. */
MPIDI_VC_t *
mxn_pkt_source(uint64_t match)
{
	int src = mxn_match_rank(match), tag = mxn_match_tag(match);
	MPIDI_PG_iterator it;
	MPIDI_PG_t *pg;
	MPIDI_VC_t *vc;
	int num;

	if (tag & MXN_PKT_CM)
		return cm_find(src);
	tag &= MXN_PKT_CM - 1;
	if (tag == (mxn.pgnum & (MXN_PKT_CM - 1)) && src < mxn.pg->size) {
		MPIDI_PG_Get_vc(mxn.pg, src, &vc);
		return vc;
	}
	MPIDI_PG_Get_iterator(&it);
	while (MPIDI_PG_Has_next(&it)) {
		MPIDI_PG_Get_next(&it, &pg);
		MPIDI_PG_IdToNum(pg, &num);
		if ((num & (MXN_PKT_CM - 1)) == tag && src < pg->size) {
			MPIDI_PG_Get_vc(pg, src, &vc);
			return vc;
		}
	}
	return NULL;
}

/* ---- dynamic processes ---------------------------------------------------------------- */

/*
 * A process of another group connects to the root of a port: the new,
 * temporary VC gets the root's card, and the root gets ours (and the
 * port tag) in a CONN message, from which it makes its side of the VC.
 */
int
MPID_nem_mx_connect_to_root(const char *business_card, MPIDI_VC_t *new_vc)
{
	struct mxn_vc *v = VC_MX(new_vc);
	int mpi_errno, max = MPIR_pmi_max_val_size(), left;
	MPIR_Request *sreq;
	char *bc, *p;

	mpi_errno = MPIDI_GetTagFromPort(business_card,
			&new_vc->port_name_tag);
	MPIR_ERR_CHECK(mpi_errno);
	mpi_errno = parse_card(business_card, new_vc);
	MPIR_ERR_CHECK(mpi_errno);
	route_to(business_card, v->nic_id);
	v->cm = 1;
	v->cm_next = mxn.cm_vcs;
	mxn.cm_vcs = new_vc;

	bc = MPL_malloc(max, MPL_MEM_ADDRESS);
	MPIR_ERR_CHKANDJUMP(bc == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem");
	p = bc;
	left = max;
	bc[0] = '\0';
	if (MPL_str_add_int_arg(&p, &left, "tag", new_vc->port_name_tag) ||
			MPID_nem_mx_get_business_card(0, &p, &left)) {
		MPL_free(bc);
		MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**buscard");
	}

	sreq = MPIR_Request_create(MPIR_REQUEST_KIND__SEND);
	MPIR_ERR_CHKANDJUMP(sreq == NULL, mpi_errno, MPI_ERR_OTHER,
			"**nomemreq");
	MPIR_Object_set_ref(sreq, 1);
	sreq->dev.OnDataAvail = NULL;
	memset(REQ_MX(sreq), 0, sizeof(struct mxn_req));
	REQ_MX(sreq)->op.kind = MXN_OP_PKT_SEND;
	REQ_MX(sreq)->vc = new_vc;
	REQ_MX(sreq)->pack = bc;
	REQ_MX(sreq)->segs = REQ_MX(sreq)->seg;
	REQ_MX(sreq)->seg[0].segment_ptr = bc;
	REQ_MX(sreq)->seg[0].segment_length = (uint32_t)strlen(bc) + 1;
	REQ_MX(sreq)->nseg = 1;
	REQ_MX(sreq)->match = MXN_KIND(MXN_KIND_CONN);
	mpi_errno = mxn_post_send(sreq);
fn_exit:
	return mpi_errno;
fn_fail:
	goto fn_exit;
}

/* A CONN message arrived (root side): make the VC and queue the accept. */
int
mxn_conn_arrived(struct mxn_chunk *c)
{
	MPIDI_VC_t *vc;
	int mpi_errno, tag;

	if (c->len == 0 || c->data[c->len - 1] != '\0' ||
			MPL_str_get_int_arg(c->data, "tag", &tag) !=
			MPL_SUCCESS)
		return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
				__func__, __LINE__, MPI_ERR_OTHER,
				"**business_card", NULL);
	vc = MPL_malloc(sizeof(MPIDI_VC_t), MPL_MEM_ADDRESS);
	if (vc == NULL)
		return MPI_ERR_NO_MEM;
	MPIDI_VC_Init(vc, NULL, 0);	/* calls our vc_init */
	mpi_errno = parse_card(c->data, vc);
	if (mpi_errno) {
		MPL_free(vc);
		return mpi_errno;
	}
	vc->port_name_tag = tag;
	VC_MX(vc)->cm = 1;
	VC_MX(vc)->cm_next = mxn.cm_vcs;
	mxn.cm_vcs = vc;
	mpi_errno = MPIDI_CH3I_Acceptq_enqueue(vc, tag);
	MPIDI_CH3I_INCR_PROGRESS_COMPLETION_COUNT;
	return mpi_errno;
}
