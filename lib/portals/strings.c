/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names of return codes, event kinds and failures (Portals 3.3's
 * PtlErrorStr, PtlEventKindStr, PtlNIFailStr, and the ptl_err_str array
 * of Lustre's and Cray's headers).  They need no PtlInit.
 */
#include "portals/ptl.h"

const char *ptl_err_str[] = {
	[PTL_OK] = "PTL_OK",
	[PTL_SEGV] = "PTL_SEGV",
	[PTL_NOSPACE] = "PTL_NOSPACE",
	[PTL_INUSE] = "PTL_INUSE",
	[PTL_FAIL] = "PTL_FAIL",
	[PTL_NOINIT] = "PTL_NOINIT",
	[PTL_INIT_DUP] = "PTL_INIT_DUP",
	[PTL_INIT_INV] = "PTL_INIT_INV",
	[PTL_INV_ASIZE] = "PTL_INV_ASIZE",
	[PTL_INV_HANDLE] = "PTL_INV_HANDLE",
	[PTL_INV_MD] = "PTL_INV_MD",
	[PTL_INV_ME] = "PTL_INV_ME",
	[PTL_INV_NI] = "PTL_INV_NI",
	[PTL_INV_PROC] = "PTL_INV_PROC",
	[PTL_INV_PTINDEX] = "PTL_INV_PTINDEX",
	[PTL_INV_SR_INDX] = "PTL_INV_SR_INDX",
	[PTL_INV_EQ] = "PTL_INV_EQ",
	[PTL_EQ_DROPPED] = "PTL_EQ_DROPPED",
	[PTL_EQ_EMPTY] = "PTL_EQ_EMPTY",
	[PTL_NOUPDATE] = "PTL_NOUPDATE",
	[PTL_AC_INV_INDEX] = "PTL_AC_INV_INDEX",
	[PTL_ILL_MD] = "PTL_ILL_MD",
	[PTL_ML_TOOLONG] = "PTL_ML_TOOLONG",
	[PTL_MD_INUSE] = "PTL_MD_INUSE",
	[PTL_PT_FULL] = "PTL_PT_FULL",
	[PTL_PID_INVALID] = "PTL_PID_INVALID",
	[PTL_UNKNOWN_ERROR] = "PTL_UNKNOWN_ERROR",
	[PTL_MAX_ERRNO] = NULL,
};

const char *
PtlErrorStr(unsigned int ptl_errno)
{
	if (ptl_errno >= PTL_MAX_ERRNO)
		return "PTL_UNKNOWN_ERROR";
	return ptl_err_str[ptl_errno];
}

static const char *const kinds[] = {
	[PTL_EVENT_GET_START] = "PTL_EVENT_GET_START",
	[PTL_EVENT_GET_END] = "PTL_EVENT_GET_END",
	[PTL_EVENT_GET_FAIL] = "PTL_EVENT_GET_FAIL",
	[PTL_EVENT_PUT_START] = "PTL_EVENT_PUT_START",
	[PTL_EVENT_PUT_END] = "PTL_EVENT_PUT_END",
	[PTL_EVENT_PUT_FAIL] = "PTL_EVENT_PUT_FAIL",
	[PTL_EVENT_REPLY_START] = "PTL_EVENT_REPLY_START",
	[PTL_EVENT_REPLY_END] = "PTL_EVENT_REPLY_END",
	[PTL_EVENT_REPLY_FAIL] = "PTL_EVENT_REPLY_FAIL",
	[PTL_EVENT_SEND_START] = "PTL_EVENT_SEND_START",
	[PTL_EVENT_SEND_END] = "PTL_EVENT_SEND_END",
	[PTL_EVENT_SEND_FAIL] = "PTL_EVENT_SEND_FAIL",
	[PTL_EVENT_ACK] = "PTL_EVENT_ACK",
	[PTL_EVENT_UNLINK] = "PTL_EVENT_UNLINK",
	[PTL_EVENT_ACK_START] = "PTL_EVENT_ACK_START",
	[PTL_EVENT_ACK_FAIL] = "PTL_EVENT_ACK_FAIL",
	[PTL_EVENT_GETPUT_START] = "PTL_EVENT_GETPUT_START",
	[PTL_EVENT_GETPUT_END] = "PTL_EVENT_GETPUT_END",
};

const char *
PtlEventKindStr(ptl_event_kind_t kind)
{
	if ((unsigned)kind >= sizeof(kinds) / sizeof(kinds[0]))
		return "PTL_EVENT_UNKNOWN";
	return kinds[kind];
}

static const char *const fails[] = {
	[PTL_NI_OK] = "PTL_NI_OK",
	[PTL_NI_FAIL] = "PTL_NI_FAIL: the transfer failed",
	[PTL_NI_UNREACHABLE] =
		"PTL_NI_UNREACHABLE: the peer stopped answering",
	[PTL_NI_CLOSED] =
		"PTL_NI_CLOSED: the target process has no interface open",
	[PTL_NI_DROPPED] = "PTL_NI_DROPPED: the target dropped the get",
};

const char *
PtlNIFailStr(ptl_handle_ni_t ni_handle, ptl_ni_fail_t fail)
{
	(void)ni_handle;
	if (fail >= sizeof(fails) / sizeof(fails[0]))
		return "PTL_NI_UNKNOWN";
	return fails[fail];
}
