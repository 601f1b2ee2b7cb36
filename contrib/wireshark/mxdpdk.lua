-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark dissector for the mx-dpdk wire format, version 2: Ethernet II
-- frames of EtherType 0x88b5 (docs/wire.md, proto/wire.h).
--
--   tshark -X lua_script:contrib/wireshark/mxdpdk.lua -r capture.pcap
--   tshark -X lua_script:... -r capture.pcap -Y 'mxdpdk.csum.status == 0'
--   tshark -X lua_script:... -r capture.pcap -T fields -e mxdpdk.type \
--          -e mxdpdk.seq -e mxdpdk.match -e mxdpdk.csum.status
--
-- Every field of every frame type is decoded under "mxdpdk.*".  The
-- integrity check is verified as proto/wire.c does it: CRC-32C
-- (Castagnoli, reflected, initial value and final xor 0xffffffff) of the
-- frame from its first Ethernet byte to the end of the common header's
-- length, with the csum field taken as zero; mxdpdk.csum.status says
-- 1 good, 0 bad (with an expert error), 2 unverified (the length runs past
-- the frame).  The rules mxd_wire_parse() applies after the check are
-- applied too: a frame it would drop gets an expert warning naming its
-- drop counter ("drop: bad fragment", ...).  A message fragment, pull
-- request or pull reply seen before (same session, sequence number or
-- offset) is marked mxdpdk.retransmission with the frame of its first copy.
--
-- Written for Wireshark 4.0 (Lua 5.2, bit32); also loads under Lua 5.3+.

local ETHERTYPE = 0x88b5
local WIRE_VERSION = 2
local HDR_LEN = 32		-- common header
local CSUM_OFF = 28		-- within the common header

local mx = Proto("mxdpdk", "mx-dpdk (Myrinet Express over Ethernet)")

------------------------------------------------------------------------
-- Bit operations: bit32 under Lua 5.2, native operators from 5.3 on.
------------------------------------------------------------------------
local band, bxor, rshift
if bit32 then
	band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift
else
	band = load("return function(a, b) return a & b end")()
	bxor = load("return function(a, b) return a ~ b end")()
	rshift = load("return function(a, n) return a >> n end")()
end

------------------------------------------------------------------------
-- CRC-32C, byte by byte from a table (reflected polynomial 0x82f63b78).
------------------------------------------------------------------------
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if band(c, 1) ~= 0 then
			c = bxor(rshift(c, 1), 0x82f63b78)
		else
			c = rshift(c, 1)
		end
	end
	crc_table[i] = c
end

-- Feeds the bytes of Lua string s to the CRC register c.
local function crc_update(c, s)
	local byte = string.byte
	for i = 1, #s, 256 do
		local chunk = { byte(s, i, math.min(i + 255, #s)) }
		for k = 1, #chunk do
			local x = band(bxor(c, chunk[k]), 0xff)
			c = bxor(rshift(c, 8), crc_table[x])
		end
	end
	return c
end

------------------------------------------------------------------------
-- Names, as in proto/wire.h.
------------------------------------------------------------------------
local T_EAGER, T_ACK, T_CONN_REQ, T_CONN_REP = 1, 2, 3, 4
local T_DISCOVER, T_NACK, T_PULL, T_PULL_REP = 5, 6, 8, 9
local T_PACK = 11

local type_names = {
	[T_EAGER] = "EAGER", [T_ACK] = "ACK", [T_CONN_REQ] = "CONN_REQ",
	[T_CONN_REP] = "CONN_REP", [T_DISCOVER] = "DISCOVER",
	[T_NACK] = "NACK", [7] = "MATCHED (version 1, unknown now)",
	[T_PULL] = "PULL", [T_PULL_REP] = "PULL_REP",
	[10] = "NOTIFY (version 1, unknown now)", [T_PACK] = "PACK",
}
local F_ACK_VALID, F_SYNC, F_RNDV, F_CTRL, F_PING, F_FRESH, F_BYE, F_SACK =
	0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
local notice_names = { [1] = "MATCHED", [2] = "NOTIFY" }
local nack_reasons = { [1] = "endpoint closed or old session",
	[2] = "bad filter" }
local nack_short = { [1] = "closed", [2] = "bad filter" }
local conn_status = { [0] = "OK", [1] = "endpoint closed",
	[2] = "bad filter", [3] = "no resources" }
local csum_states = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
local CSUM_BAD, CSUM_GOOD, CSUM_UNVERIFIED = 0, 1, 2

local MAX_FRAGS = 64
local PACK_MAX = 256		-- MXD_PACK_MAX
local FRAGS_MAX = 64		-- MXD_FRAGS_MAX
local PACK_FLAGS = 0x02 + 0x04 + 0x08	-- SYNC, RNDV, CTRL: a record's own
local EAGER_CAP = MAX_FRAGS * 16384	-- MXD_WIRE_EAGER_CAP
local RNDV_DESC_LEN = 16
local RNDV_HEAD_MAX = 112	-- MXD_RNDV_HEAD_MAX
-- Portals (proto/portals_wire.h): the header that a Portals message (the
-- filter of every Portals endpoint: PTL_FILTER) carries first: a fixed
-- part of 16 bytes, then the 8-byte words its kind and flags say; padded
-- to PTL_HEAD bytes in a rendezvous's descriptor.
local PTL_FILTER = 0x50544c33
local PTL_VERSION = 2
local PTL_HFIX = 16
local PTL_HEAD = 72		-- MXD_PTL_HEAD
local ptl_kinds = { [1] = "PUT", [2] = "GET", [3] = "ACK", [4] = "REPLY" }
local PTL_F_ACK_REQ = 0x01
local PTL_F_DROPPED = 0x02
local PTL_F_OFFSET = 0x04
local PTL_F_DATA = 0x08
local PTL_F_COOKIE = 0x10
-- The words in their order on the wire (enum mxd_ptl_word).
local ptl_words = { "match", "rlength", "mlength", "offset", "data", "md",
	"link", "cookie" }
-- The words each kind always carries, and the flags it takes.
local ptl_kind_words = {
	[1] = { match = true },
	[2] = { match = true, rlength = true, cookie = true },
	[3] = { match = true, rlength = true, mlength = true, md = true,
		link = true },
	[4] = { cookie = true },
}
local ptl_kind_flags = {
	[1] = PTL_F_ACK_REQ + PTL_F_OFFSET + PTL_F_DATA + PTL_F_COOKIE,
	[2] = PTL_F_OFFSET,
	[3] = PTL_F_OFFSET + PTL_F_COOKIE,
	[4] = PTL_F_DROPPED,
}

------------------------------------------------------------------------
-- Fields.
------------------------------------------------------------------------
local pf = {
	-- common header
	version = ProtoField.uint8("mxdpdk.version", "Version", base.DEC),
	type = ProtoField.uint8("mxdpdk.type", "Type", base.DEC, type_names),
	flags = ProtoField.uint8("mxdpdk.flags", "Flags", base.HEX),
	f_ack = ProtoField.bool("mxdpdk.flags.ack_valid", "ACK_VALID", 8,
		nil, F_ACK_VALID, "the ack field carries an ack"),
	f_sync = ProtoField.bool("mxdpdk.flags.sync", "SYNC", 8, nil, F_SYNC,
		"EAGER: the sender waits for a MATCHED notice (mx_issend); " ..
		"PULL: AGAIN, frames asked again; PULL_REP: GONE, the send " ..
		"ended; ACK: FRAGS, fragments held follow"),
	f_rndv = ProtoField.bool("mxdpdk.flags.rndv", "RNDV", 8, nil, F_RNDV,
		"EAGER: the payload is a rendezvous descriptor"),
	f_ctrl = ProtoField.bool("mxdpdk.flags.ctrl", "CTRL", 8, nil, F_CTRL,
		"EAGER: a notice"),
	f_ping = ProtoField.bool("mxdpdk.flags.ping", "PING", 8, nil, F_PING,
		"ACK: answer with an ACK at once"),
	f_fresh = ProtoField.bool("mxdpdk.flags.fresh", "FRESH", 8, nil,
		F_FRESH, "CONN_REQ/REP: the sender's windows start over"),
	f_bye = ProtoField.bool("mxdpdk.flags.bye", "BYE", 8, nil, F_BYE,
		"ACK: the sender's endpoint is closing; its ack is final"),
	f_sack = ProtoField.bool("mxdpdk.flags.sack", "SACK", 8, nil, F_SACK,
		"ACK: a selective-ack bitmap follows the header"),
	sack = ProtoField.uint64("mxdpdk.ack.sack", "SACK", base.HEX, nil,
		nil, "bit i: message ack + 1 + i received whole"),
	frags_seq = ProtoField.uint32("mxdpdk.ack.frags.seq",
		"Message received in part", base.DEC),
	frags_have = ProtoField.uint64("mxdpdk.ack.frags.have",
		"Fragments held", base.HEX, nil, nil,
		"bit i: fragment i is held; the others are sent again"),
	epoch = ProtoField.uint8("mxdpdk.epoch", "Epoch (low byte)", base.DEC,
		nil, nil, "to a partner: the low byte of the sender's " ..
		"epoch for it (a frame of an earlier one is stale); 0 in " ..
		"other frames and from older senders"),
	src_ep = ProtoField.uint8("mxdpdk.src_ep", "Source endpoint"),
	dst_ep = ProtoField.uint8("mxdpdk.dst_ep", "Destination endpoint"),
	dst_peer = ProtoField.uint16("mxdpdk.dst_peer",
		"Destination partner index"),
	src_peer = ProtoField.uint16("mxdpdk.src_peer",
		"Source partner index"),
	length = ProtoField.uint16("mxdpdk.length", "Length", base.DEC, nil,
		nil, "bytes after the common header"),
	filter = ProtoField.uint32("mxdpdk.filter", "Filter", base.HEX),
	src_session = ProtoField.uint32("mxdpdk.src_session",
		"Source session", base.HEX),
	dst_session = ProtoField.uint32("mxdpdk.dst_session",
		"Destination session", base.HEX),
	ack = ProtoField.uint32("mxdpdk.ack", "Cumulative ack", base.DEC),
	csum = ProtoField.uint32("mxdpdk.csum", "Checksum (CRC-32C)",
		base.HEX),
	csum_calc = ProtoField.uint32("mxdpdk.csum.calculated",
		"Calculated checksum", base.HEX),
	csum_status = ProtoField.uint8("mxdpdk.csum.status",
		"Checksum status", base.DEC, csum_states),

	-- EAGER
	seq = ProtoField.uint32("mxdpdk.seq", "Sequence number"),
	msg_len = ProtoField.uint32("mxdpdk.msg_len", "Message length"),
	match = ProtoField.uint64("mxdpdk.match", "Match information",
		base.HEX),
	frag_off = ProtoField.uint32("mxdpdk.frag_off", "Fragment offset"),
	frag_idx = ProtoField.uint8("mxdpdk.frag_idx", "Fragment index"),
	frag_count = ProtoField.uint8("mxdpdk.frag_count", "Fragment count"),
	frag_max = ProtoField.uint16("mxdpdk.frag_max",
		"Largest fragment payload"),
	frag_len = ProtoField.uint32("mxdpdk.frag_len",
		"Fragment payload length"),
	notice_kind = ProtoField.uint32("mxdpdk.notice.kind", "Notice kind",
		base.DEC, notice_names),
	notice_value = ProtoField.uint32("mxdpdk.notice.value",
		"Notice value", base.HEX),
	rndv_total = ProtoField.uint32("mxdpdk.rndv.total_len",
		"Large message length"),
	rndv_handle = ProtoField.uint32("mxdpdk.rndv.send_handle",
		"Send handle", base.HEX),
	rndv_frag = ProtoField.uint16("mxdpdk.rndv.frag_max",
		"Largest pull reply payload"),
	rndv_head = ProtoField.uint16("mxdpdk.rndv.head",
		"Head (message bytes after the descriptor, not pulled)"),
	rndv_pad = ProtoField.bytes("mxdpdk.rndv.pad", "Pad"),
	ptl_version = ProtoField.uint8("mxdpdk.ptl.version", "Portals version",
		base.DEC, nil, 0xf0),
	ptl_kind = ProtoField.uint8("mxdpdk.ptl.kind", "Kind", base.DEC,
		ptl_kinds, 0x0f),
	ptl_flags = ProtoField.uint8("mxdpdk.ptl.flags", "Flags", base.HEX),
	ptl_ack_req = ProtoField.bool("mxdpdk.ptl.flags.ack_req", "ACK_REQ", 8,
		nil, PTL_F_ACK_REQ, "PUT: acknowledge it"),
	ptl_dropped = ProtoField.bool("mxdpdk.ptl.flags.dropped", "DROPPED", 8,
		nil, PTL_F_DROPPED, "REPLY: the target dropped the get"),
	ptl_f_offset = ProtoField.bool("mxdpdk.ptl.flags.offset", "OFFSET", 8,
		nil, PTL_F_OFFSET, "the offset word"),
	ptl_f_data = ProtoField.bool("mxdpdk.ptl.flags.data", "DATA", 8,
		nil, PTL_F_DATA, "PUT: the hdr_data word"),
	ptl_f_cookie = ProtoField.bool("mxdpdk.ptl.flags.cookie", "COOKIE", 8,
		nil, PTL_F_COOKIE, "PUT, ACK: the op_cookie word"),
	ptl_pt = ProtoField.uint16("mxdpdk.ptl.pt_index", "Portal index"),
	ptl_uid = ProtoField.uint32("mxdpdk.ptl.src_uid", "Sender's user id"),
	ptl_jid = ProtoField.uint32("mxdpdk.ptl.src_jid", "Sender's job id"),
	ptl_ac = ProtoField.uint16("mxdpdk.ptl.ac_index", "Cookie (AC index)"),
	ptl_bits = ProtoField.uint64("mxdpdk.ptl.match_bits", "Match bits",
		base.HEX),
	ptl_offset = ProtoField.uint64("mxdpdk.ptl.offset", "Offset"),
	ptl_hdr_data = ProtoField.uint64("mxdpdk.ptl.hdr_data", "Header data",
		base.HEX),
	ptl_rlength = ProtoField.uint64("mxdpdk.ptl.rlength", "Requested length"),
	ptl_mlength = ProtoField.uint64("mxdpdk.ptl.mlength", "Moved length"),
	ptl_md = ProtoField.uint64("mxdpdk.ptl.md_handle",
		"Initiator's descriptor", base.HEX),
	ptl_cookie = ProtoField.uint64("mxdpdk.ptl.op_cookie",
		"Operation cookie", base.HEX),
	ptl_link = ProtoField.uint32("mxdpdk.ptl.link", "Link"),
	ptl_pad = ProtoField.bytes("mxdpdk.ptl.pad", "Pad"),
	ptl_data = ProtoField.bytes("mxdpdk.ptl.data", "Portals data"),
	data = ProtoField.bytes("mxdpdk.data", "Data"),

	-- PACK
	pack_count = ProtoField.uint16("mxdpdk.pack.count", "Messages"),
	pack_pad = ProtoField.bytes("mxdpdk.pack.pad", "Pad"),
	pack_len = ProtoField.uint16("mxdpdk.pack.len", "Message length"),
	pack_flags = ProtoField.uint8("mxdpdk.pack.flags", "Message flags",
		base.HEX),
	pack_rec_pad = ProtoField.bytes("mxdpdk.pack.rec_pad", "Pad"),

	-- CONN_REQ / CONN_REP
	conn_nic = ProtoField.uint64("mxdpdk.conn.src_nic", "Source NIC id",
		base.HEX),
	conn_id = ProtoField.uint32("mxdpdk.conn.conn_id", "Connection id",
		base.HEX),
	conn_filter = ProtoField.uint32("mxdpdk.conn.src_filter",
		"Source filter", base.HEX),
	conn_status = ProtoField.uint8("mxdpdk.conn.status", "Status",
		base.DEC, conn_status),
	conn_mtu = ProtoField.uint16("mxdpdk.conn.mtu", "MTU", base.DEC),
	conn_caps = ProtoField.uint8("mxdpdk.conn.caps", "Capabilities",
		base.HEX, nil, nil, "bit 0: the sender takes PACK frames, " ..
		"bit 1: ACKs naming fragments held, bit 2: its frames carry " ..
		"the epoch, bit 3: the sender is a slot of a shared board, " ..
		"its number in bits 4-7 (0 from older senders: padding)"),
	conn_slot = ProtoField.uint8("mxdpdk.conn.slot", "Slot", base.DEC,
		nil, nil, "the slot of the sender's shared board that holds " ..
		"its endpoint (caps bit 3): frames to it go to that slot's " ..
		"queues; slot 0 is the board service"),
	conn_epoch = ProtoField.uint32("mxdpdk.conn.epoch", "Epoch",
		base.DEC),
	conn_dst_nic = ProtoField.uint64("mxdpdk.conn.dst_nic",
		"Destination NIC id", base.HEX),

	-- DISCOVER
	disc_nic = ProtoField.uint64("mxdpdk.disc.src_nic", "Source NIC id",
		base.HEX),
	disc_query = ProtoField.uint8("mxdpdk.disc.query", "Query", base.DEC,
		{ [0] = "announcement", [1] = "query" }),
	disc_pad = ProtoField.bytes("mxdpdk.disc.pad", "Pad"),
	disc_name = ProtoField.string("mxdpdk.disc.name", "Board name"),
	disc_want = ProtoField.string("mxdpdk.disc.want", "Name asked for"),

	-- NACK
	nack_seq = ProtoField.uint32("mxdpdk.nack.seq",
		"Refused sequence number"),
	nack_reason = ProtoField.uint8("mxdpdk.nack.reason", "Reason",
		base.DEC, nack_reasons),
	nack_session = ProtoField.uint32("mxdpdk.nack.session",
		"Refused session", base.HEX),
	nack_pad = ProtoField.bytes("mxdpdk.nack.pad", "Pad"),

	-- PULL
	pull_send = ProtoField.uint32("mxdpdk.pull.send_handle",
		"Send handle", base.HEX),
	pull_recv = ProtoField.uint32("mxdpdk.pull.recv_handle",
		"Receive handle", base.HEX),
	pull_off = ProtoField.uint32("mxdpdk.pull.offset", "Offset"),
	pull_len = ProtoField.uint32("mxdpdk.pull.length", "Length"),
	pull_frag = ProtoField.uint16("mxdpdk.pull.frag",
		"Reply payload length"),
	pull_pad = ProtoField.bytes("mxdpdk.pull.pad", "Pad"),

	-- PULL_REP
	rep_recv = ProtoField.uint32("mxdpdk.pull_rep.recv_handle",
		"Receive handle", base.HEX),
	rep_off = ProtoField.uint32("mxdpdk.pull_rep.offset", "Offset"),
	rep_len = ProtoField.uint32("mxdpdk.pull_rep.len", "Payload length"),
	rep_gone = ProtoField.uint32("mxdpdk.pull_rep.gone", "Send gone",
		base.HEX, nil, nil, "GONE: the handle of the send the PULL " ..
		"named, which ended without being pulled"),

	-- analysis
	retrans = ProtoField.framenum("mxdpdk.retransmission",
		"Retransmission of frame", base.NONE),
	padding = ProtoField.bytes("mxdpdk.padding",
		"Padding after the MX content"),
}
local field_list = {}
for _, f in pairs(pf) do
	field_list[#field_list + 1] = f
end
mx.fields = field_list

local ex = {
	csum_bad = ProtoExpert.new("mxdpdk.csum.bad", "Bad checksum",
		expert.group.CHECKSUM, expert.severity.ERROR),
	csum_unverified = ProtoExpert.new("mxdpdk.csum.unverified",
		"Checksum not verifiable: the length runs past the frame",
		expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("mxdpdk.version.unknown",
		"Unknown wire version (drop: wire version)",
		expert.group.PROTOCOL, expert.severity.WARN),
	dropped = ProtoExpert.new("mxdpdk.dropped",
		"A receiver drops this frame", expert.group.MALFORMED,
		expert.severity.WARN),
	retrans = ProtoExpert.new("mxdpdk.retransmission.expert",
		"Retransmission", expert.group.SEQUENCE, expert.severity.NOTE),
	ptl_bad = ProtoExpert.new("mxdpdk.ptl.bad",
		"A Portals header its receiver drops (malformed)",
		expert.group.MALFORMED, expert.severity.WARN),
}
mx.experts = { ex.csum_bad, ex.csum_unverified, ex.version, ex.dropped,
	ex.retrans, ex.ptl_bad }

-- The Ethernet header is not in our tvb; the check covers it.
local eth_dst = Field.new("eth.dst")
local eth_src = Field.new("eth.src")

------------------------------------------------------------------------
-- Per-capture state: first copy of each message fragment / pull / reply.
------------------------------------------------------------------------
local first_seen = {}	-- key -> frame number of its first good copy
local retrans_of = {}	-- frame number -> frame number of the first copy

function mx.init()
	first_seen = {}
	retrans_of = {}
end

local function note_copy(pinfo, key)
	if not pinfo.visited then
		local first = first_seen[key]
		if first == nil then
			first_seen[key] = pinfo.number
		elseif first ~= pinfo.number then
			retrans_of[pinfo.number] = first
		end
	end
	return retrans_of[pinfo.number]
end

------------------------------------------------------------------------
-- The check.
------------------------------------------------------------------------
-- Returns status, computed CRC (or nil).  'body' is the length field.
local function check_csum(tvb, body)
	-- the innermost Ethernet header if there are several
	local dsts, srcs = { eth_dst() }, { eth_src() }
	local dst, src = dsts[#dsts], srcs[#srcs]
	local n = HDR_LEN + body

	if n > tvb:len() or dst == nil or src == nil then
		return CSUM_UNVERIFIED, nil
	end
	local c = 0xffffffff
	c = crc_update(c, dst.range:raw())
	c = crc_update(c, src.range:raw())
	c = crc_update(c, string.char(rshift(ETHERTYPE, 8),
		band(ETHERTYPE, 0xff)))
	c = crc_update(c, tvb:raw(0, CSUM_OFF))
	c = crc_update(c, "\0\0\0\0")
	c = crc_update(c, tvb:raw(CSUM_OFF + 4, n - CSUM_OFF - 4))
	c = bxor(c, 0xffffffff)
	if c == tvb(CSUM_OFF, 4):uint() then
		return CSUM_GOOD, c
	end
	return CSUM_BAD, c
end

------------------------------------------------------------------------
-- Type headers.  Each takes (tvb, tree, h, pinfo) where h holds the
-- common header's values and the type header's bytes start at 32; each
-- returns the info text and the drop reason mxd_wire_parse() would give
-- (nil when it accepts the frame).
------------------------------------------------------------------------
local function u32(tvb, off) return tvb(off, 4):uint() end

local function hex64(tvb, off)
	return string.format("0x%08x%08x", u32(tvb, off), u32(tvb, off + 4))
end

-- A descriptor of msg_len bytes: 16, and its head (within the message).
local function rndv_len_ok(head, total, msg_len)
	return msg_len >= RNDV_DESC_LEN and head ~= nil and
		msg_len == RNDV_DESC_LEN + head and head <= RNDV_HEAD_MAX and
		head <= total
end

local function eager_rules(h, e)
	if e.frag_max == 0 or e.msg_len > EAGER_CAP then
		return "drop: bad fragment"
	end
	local count = e.msg_len == 0 and 1 or
		math.floor((e.msg_len + e.frag_max - 1) / e.frag_max)
	if count > MAX_FRAGS or count ~= e.frag_count or
			e.frag_idx >= count or
			e.frag_off ~= e.frag_idx * e.frag_max then
		return "drop: bad fragment"
	end
	if e.frag_len ~= math.min(e.frag_max, e.msg_len - e.frag_off) then
		return "drop: bad length"
	end
	if band(h.flags, F_RNDV) ~= 0 and count ~= 1 then
		return "drop: bad fragment"	-- a descriptor comes whole
	end
	if band(h.flags, F_RNDV) ~= 0 and not rndv_len_ok(e.head, e.total,
			e.msg_len) then
		return "drop: bad length"
	end
	if band(h.flags, F_CTRL) ~= 0 and (e.msg_len ~= 0 or
			band(h.flags, F_RNDV + F_SYNC) ~= 0 or
			e.kind == 0 or notice_names[e.kind] == nil) then
		return "drop: bad fragment"
	end
	return nil
end

local function dissect_rndv(tvb, tree, off)
	local t = tree:add(tvb(off, RNDV_DESC_LEN), "Rendezvous descriptor")
	t:add(pf.rndv_total, tvb(off, 4))
	t:add(pf.rndv_handle, tvb(off + 4, 4))
	t:add(pf.rndv_frag, tvb(off + 8, 2))
	t:add(pf.rndv_head, tvb(off + 10, 2))
	t:add(pf.rndv_pad, tvb(off + 12, 4))
	return string.format(" RNDV total=%u handle=0x%x", u32(tvb, off),
		u32(tvb, off + 4))
end

-- The Portals header at off of a message of msg_len bytes, header
-- included, len bytes of it here ('padded': a rendezvous's head, the
-- header padded to PTL_HEAD bytes); then its data in this frame.
-- Returns the info text.
local function dissect_ptl(tvb, tree, off, msg_len, len, padded)
	local vk, fl = tvb(off, 1):uint(), tvb(off + 1, 1):uint()
	local kind = band(vk, 0x0f)
	local has = {}
	for w in pairs(ptl_kind_words[kind] or {}) do has[w] = true end
	if band(fl, PTL_F_OFFSET) ~= 0 then has.offset = true end
	if band(fl, PTL_F_DATA) ~= 0 then has.data = true end
	if band(fl, PTL_F_ACK_REQ) ~= 0 then has.md, has.link = true, true end
	if band(fl, PTL_F_COOKIE) ~= 0 then has.cookie = true end
	local at, word = {}, off + PTL_HFIX
	for _, w in ipairs(ptl_words) do
		if has[w] then at[w] = word; word = word + 8 end
	end
	local hl = word - off
	local start = padded and PTL_HEAD or hl
	if len < start then
		tree:add(pf.data, tvb(off, len))
		return " PTL (short)"
	end
	local t = tree:add(tvb(off, start), "Portals header")
	t:add(pf.ptl_version, tvb(off, 1))
	t:add(pf.ptl_kind, tvb(off, 1))
	local fi = t:add(pf.ptl_flags, tvb(off + 1, 1))
	fi:add(pf.ptl_ack_req, tvb(off + 1, 1))
	fi:add(pf.ptl_dropped, tvb(off + 1, 1))
	fi:add(pf.ptl_f_offset, tvb(off + 1, 1))
	fi:add(pf.ptl_f_data, tvb(off + 1, 1))
	fi:add(pf.ptl_f_cookie, tvb(off + 1, 1))
	t:add(pf.ptl_pt, tvb(off + 2, 2))
	t:add(pf.ptl_uid, tvb(off + 4, 4))
	t:add(pf.ptl_jid, tvb(off + 8, 4))
	t:add(pf.ptl_ac, tvb(off + 12, 2))
	t:add(pf.ptl_pad, tvb(off + 14, 2))
	-- The data's length is what the message holds after the header: a
	-- PUT's rlength, a REPLY's mlength.
	local body = msg_len - start
	local rlen, mlen = UInt64.new(0), UInt64.new(0)
	local fields = { match = pf.ptl_bits, rlength = pf.ptl_rlength,
		mlength = pf.ptl_mlength, offset = pf.ptl_offset,
		data = pf.ptl_hdr_data, md = pf.ptl_md, cookie = pf.ptl_cookie }
	for _, w in ipairs(ptl_words) do
		if at[w] and w == "link" then
			t:add(pf.ptl_link, tvb(at[w], 4))
			t:add(pf.ptl_pad, tvb(at[w] + 4, 4))
		elseif at[w] then
			t:add(fields[w], tvb(at[w], 8))
		end
	end
	if at.rlength then rlen = tvb(at.rlength, 8):uint64() end
	if at.mlength then mlen = tvb(at.mlength, 8):uint64() end
	if kind == 1 and body >= 0 then
		rlen = UInt64.new(body)
		t:add(pf.ptl_rlength, tvb(off, 1), rlen):set_generated()
	elseif kind == 4 and body >= 0 then
		mlen = UInt64.new(body)
		t:add(pf.ptl_mlength, tvb(off, 1), mlen):set_generated()
	end
	if start > hl then
		t:add(pf.ptl_pad, tvb(off + hl, start - hl))
	end
	-- What mxd_ptl_wire_parse() refuses (the face drops the message).
	local allowed = ptl_kind_flags[kind] or 0
	local zero = true
	for i = hl, start - 1 do
		if tvb(off + i, 1):uint() ~= 0 then zero = false end
	end
	local lengths_ok = body >= 0 and
		((kind == 2 and body == 0) or
		 (kind == 3 and body == 0 and mlen <= rlen) or
		 (kind == 4 and (band(fl, PTL_F_DROPPED) == 0 or body == 0)) or
		 kind == 1)
	local bad = rshift(vk, 4) ~= PTL_VERSION or ptl_kinds[kind] == nil or
		band(fl, 0xff - allowed) ~= 0 or
		(kind == 1 and band(fl, PTL_F_COOKIE) ~= 0 and
			band(fl, PTL_F_ACK_REQ) == 0) or
		tvb(off + 14, 2):uint() ~= 0 or
		(kind == 4 and tvb(off + 2, 2):uint() ~= 0) or
		(kind > 2 and tvb(off + 12, 2):uint() ~= 0) or
		(at.link and u32(tvb, at.link + 4) ~= 0) or
		not zero or not lengths_ok
	if bad then
		t:add_proto_expert_info(ex.ptl_bad)
	end
	if len > start then
		tree:add(pf.ptl_data, tvb(off + start, len - start))
	end
	local info = string.format(" PTL %s", ptl_kinds[kind] or
		("kind " .. kind))
	if kind ~= 4 then
		info = info .. string.format(" pt=%u bits=%s",
			tvb(off + 2, 2):uint(), at.match and hex64(tvb, at.match)
			or "0")
	end
	if kind ~= 4 then
		info = info .. " rlen=" .. tostring(rlen)
	end
	if kind == 3 or kind == 4 then
		info = info .. " mlen=" .. tostring(mlen)
	end
	if band(fl, PTL_F_ACK_REQ) ~= 0 and kind == 1 then
		info = info .. " ACK_REQ"
	end
	if band(fl, PTL_F_DROPPED) ~= 0 and kind == 4 then
		info = info .. " DROPPED"
	end
	return info .. (bad and " [malformed]" or "")
end

-- A Portals message's body at off (len bytes of it in this frame, the
-- message msg_len bytes; RNDV: the descriptor and its head).
local function dissect_ptl_body(tvb, tree, off, len, msg_len, rndv)
	if rndv then
		local info = dissect_rndv(tvb, tree, off)
		if len >= RNDV_DESC_LEN + PTL_HEAD then
			info = info .. dissect_ptl(tvb, tree, off + RNDV_DESC_LEN,
				u32(tvb, off), PTL_HEAD, true)
		end
		return info
	end
	if len < PTL_HFIX then
		tree:add(pf.data, tvb(off, len))
		return " PTL (short)"
	end
	return dissect_ptl(tvb, tree, off, msg_len, len, false)
end

local function dissect_eager(tvb, tree, h, pinfo)
	local o = HDR_LEN
	if h.length < 24 then
		return "EAGER (truncated)", "drop: bad length"
	end
	local e = {
		seq = u32(tvb, o), msg_len = u32(tvb, o + 4),
		head = h.length >= 24 + RNDV_DESC_LEN and
			tvb(o + 34, 2):uint() or nil,
		total = h.length >= 24 + RNDV_DESC_LEN and u32(tvb, o + 24) or 0,
		kind = u32(tvb, o + 8), value = u32(tvb, o + 12),
		frag_off = u32(tvb, o + 16), frag_idx = tvb(o + 20, 1):uint(),
		frag_count = tvb(o + 21, 1):uint(),
		frag_max = tvb(o + 22, 2):uint(), frag_len = h.length - 24,
	}
	local t = tree:add(tvb(o, 24), "Eager header")
	t:add(pf.seq, tvb(o, 4))
	t:add(pf.msg_len, tvb(o + 4, 4))
	local m = t:add(pf.match, tvb(o + 8, 8))
	local ctrl = band(h.flags, F_CTRL) ~= 0
	if ctrl then
		m:add(pf.notice_kind, tvb(o + 8, 4))
		m:add(pf.notice_value, tvb(o + 12, 4))
	end
	t:add(pf.frag_off, tvb(o + 16, 4))
	t:add(pf.frag_idx, tvb(o + 20, 1))
	t:add(pf.frag_count, tvb(o + 21, 1))
	t:add(pf.frag_max, tvb(o + 22, 2))
	t:add(pf.frag_len, e.frag_len):set_generated()

	local info
	if ctrl then
		info = string.format("NOTICE %s seq=%u value=0x%x",
			notice_names[e.kind] or ("kind " .. e.kind), e.seq, e.value)
	else
		info = string.format("EAGER seq=%u len=%u match=%s", e.seq,
			e.msg_len, hex64(tvb, o + 8))
		if e.frag_count > 1 then
			info = info .. string.format(" frag %u/%u", e.frag_idx + 1,
				e.frag_count)
		end
		if band(h.flags, F_SYNC) ~= 0 then
			info = info .. " SYNC"
		end
	end
	local rndv = band(h.flags, F_RNDV) ~= 0
	if e.frag_len > 0 and h.filter == PTL_FILTER and not ctrl and
			e.frag_idx == 0 and (not rndv or e.frag_len >= RNDV_DESC_LEN) then
		info = info .. dissect_ptl_body(tvb, tree, o + 24, e.frag_len,
			e.msg_len, rndv)
	elseif e.frag_len > 0 then
		local d = tvb(o + 24, e.frag_len)
		if rndv and e.frag_len >= RNDV_DESC_LEN then
			info = info .. dissect_rndv(tvb, tree, o + 24)
		else
			tree:add(pf.data, d)
		end
	end
	h.copy_key = string.format("E%x.%x.%u.%u", h.src_session,
		h.dst_session, e.seq, e.frag_idx)
	return info, eager_rules(h, e)
end

-- The reasons mxd_wire_parse() gives a record of a PACK frame.
local function pack_rec_rules(fl, len, kind, seq, prev, head, total)
	if band(fl, 0xff - PACK_FLAGS) ~= 0 then
		return "drop: bad fragment"
	end
	if band(fl, F_RNDV) ~= 0 and not rndv_len_ok(head, total, len) then
		return "drop: bad length"
	end
	if band(fl, F_CTRL) ~= 0 and (len ~= 0 or
			band(fl, F_RNDV + F_SYNC) ~= 0 or
			kind == 0 or notice_names[kind] == nil) then
		return "drop: bad fragment"
	end
	if prev ~= nil and band(seq - prev, 0xffffffff) >= 0x80000000 or
			prev == seq then
		return "drop: bad fragment"	-- not rising: overlap, disorder
	end
	return nil
end

-- One record of a PACK frame at p (its size checked by the caller).
local function dissect_pack_rec(tvb, tree, p, len, size, ptl)
	local seq, fl = u32(tvb, p), tvb(p + 6, 1):uint()
	local kind, value = u32(tvb, p + 8), u32(tvb, p + 12)
	local r = tree:add(tvb(p, size), string.format("Message seq=%u len=%u",
		seq, len))
	r:add(pf.seq, tvb(p, 4))
	r:add(pf.pack_len, tvb(p + 4, 2))
	local fi = r:add(pf.pack_flags, tvb(p + 6, 1))
	for _, f in ipairs({ pf.f_sync, pf.f_rndv, pf.f_ctrl }) do
		fi:add(f, tvb(p + 6, 1))
	end
	r:add(pf.pack_rec_pad, tvb(p + 7, 1))
	local m = r:add(pf.match, tvb(p + 8, 8))
	local text
	if band(fl, F_CTRL) ~= 0 then
		m:add(pf.notice_kind, tvb(p + 8, 4))
		m:add(pf.notice_value, tvb(p + 12, 4))
		text = string.format(" %s(%u)=0x%x", notice_names[kind] or
			("notice " .. kind), seq, value)
	else
		text = string.format(" %u%s", seq, band(fl, F_SYNC) ~= 0 and
			"S" or "")
	end
	local rndv = band(fl, F_RNDV) ~= 0
	if len > 0 and ptl and band(fl, F_CTRL) == 0 and
			(not rndv or len >= RNDV_DESC_LEN) then
		text = text .. dissect_ptl_body(tvb, r, p + 16, len, len, rndv)
	elseif len > 0 then
		if rndv and len >= RNDV_DESC_LEN then
			text = text .. dissect_rndv(tvb, r, p + 16)
		else
			r:add(pf.data, tvb(p + 16, len))
		end
	end
	if size > 16 + len then
		r:add(pf.pack_rec_pad, tvb(p + 16 + len, size - 16 - len))
	end
	return seq, fl, kind, text
end

-- PACK: several whole messages, each with its own seq (proto/wire.h).
local function dissect_pack(tvb, tree, h)
	local o = HDR_LEN
	if h.length < 8 then
		return "PACK (truncated)", "drop: bad length"
	end
	local count = tvb(o, 2):uint()
	local t = tree:add(tvb(o, 8), "Pack header")
	t:add(pf.pack_count, tvb(o, 2))
	t:add(pf.pack_pad, tvb(o + 2, 6))
	local drop
	if band(h.flags, PACK_FLAGS) ~= 0 then
		drop = "drop: bad fragment"	-- a record's flags, not the frame's
	elseif count == 0 or count > PACK_MAX then
		drop = "drop: bad length"
	end
	local p, stop, prev, first, texts = o + 8, HDR_LEN + h.length, nil, nil,
		{}
	for _ = 1, math.min(count, PACK_MAX) do
		if stop - p < 16 then
			drop = drop or "drop: bad length"
			break
		end
		local len = tvb(p + 4, 2):uint()
		local size = 16 + math.floor((len + 7) / 8) * 8
		if size > stop - p then
			drop = drop or "drop: bad length"
			break
		end
		local seq, fl, kind, text = dissect_pack_rec(tvb, tree, p, len,
			size, h.filter == PTL_FILTER)
		local head = len >= RNDV_DESC_LEN and tvb(p + 26, 2):uint() or nil
		local total = len >= RNDV_DESC_LEN and u32(tvb, p + 16) or 0
		drop = drop or pack_rec_rules(fl, len, kind, seq, prev, head,
			total)
		first = first or seq
		prev = seq
		texts[#texts + 1] = text
		p = p + size
	end
	if p ~= stop then
		drop = drop or "drop: bad length"
	end
	if first ~= nil then
		h.copy_key = string.format("P%x.%x.%u.%u", h.src_session,
			h.dst_session, first, count)
	end
	return string.format("PACK %u msgs:%s", count, table.concat(texts)),
		drop
end

local function dissect_ack(tvb, tree, h)
	local info = string.format("%s ack=%u",
		band(h.flags, F_BYE) ~= 0 and "ACK BYE" or
		band(h.flags, F_PING) ~= 0 and "ACK PING" or "ACK", h.ack)
	local o, rest = HDR_LEN, h.length
	if band(h.flags, F_SACK) ~= 0 then
		if rest < 8 then
			return info .. " SACK (bad length)", "drop: bad length"
		end
		local bits = tvb(o, 8):uint64()
		tree:add(pf.sack, tvb(o, 8))
		info = info .. " SACK=0x" .. bits:tohex()
		o, rest = o + 8, rest - 8
	end
	if band(h.flags, F_SYNC) == 0 then	-- FRAGS
		return info, rest ~= 0 and "drop: bad length" or nil
	end
	-- FRAGS: 1 to FRAGS_MAX records of seq (4) and fragments held (8)
	if rest == 0 or rest % 12 ~= 0 or rest / 12 > FRAGS_MAX then
		return info .. " FRAGS (bad length)", "drop: bad length"
	end
	local texts = {}
	for i = 0, rest / 12 - 1 do
		local r = tvb(o + 12 * i, 12)
		local t = tree:add(r, string.format("Message %u received in part",
			r(0, 4):uint()))
		t:add(pf.frags_seq, r(0, 4))
		t:add(pf.frags_have, r(4, 8))
		texts[#texts + 1] = string.format("%u:0x%s", r(0, 4):uint(),
			r(4, 8):uint64():tohex())
	end
	return info .. " FRAGS " .. table.concat(texts, " "), nil
end

local function dissect_conn(tvb, tree, h)
	local o = HDR_LEN
	local name = h.type == T_CONN_REQ and "CONN_REQ" or "CONN_REP"
	if h.length ~= 32 then
		return name .. " (bad length)", "drop: bad length"
	end
	local t = tree:add(tvb(o, 32), "Connect header")
	t:add(pf.conn_nic, tvb(o, 8))
	t:add(pf.conn_id, tvb(o + 8, 4))
	t:add(pf.conn_filter, tvb(o + 12, 4))
	t:add(pf.conn_status, tvb(o + 16, 1))
	t:add(pf.conn_caps, tvb(o + 17, 1))
	local caps = tvb(o + 17, 1):uint()
	local slot = nil
	if band(caps, 0x08) ~= 0 then	-- MXD_CAP_SLOT
		-- bits 4 and 5 of the slot: the mtu field's two high bits
		slot = rshift(caps, 4) + rshift(tvb(o + 18, 2):uint(), 14) * 16
		t:add(pf.conn_slot, tvb(o + 17, 3), slot)
	end
	-- The sender's MTU; 0 (not said) from the first version-2 senders,
	-- for which these two bytes were padding.
	local mtu = band(tvb(o + 18, 2):uint(), 0x3fff)
	local mi = t:add(pf.conn_mtu, tvb(o + 18, 2), mtu)
	if mtu == 0 then
		mi:append_text(" (not said)")
	end
	t:add(pf.conn_epoch, tvb(o + 20, 4))
	t:add(pf.conn_dst_nic, tvb(o + 24, 8))
	local info = string.format("%s id=0x%x nic=%s epoch=%u", name,
		u32(tvb, o + 8), hex64(tvb, o), u32(tvb, o + 20))
	if mtu ~= 0 then
		info = info .. " mtu=" .. mtu
	end
	if slot ~= nil then
		info = info .. " slot=" .. slot
	end
	if h.type == T_CONN_REP then
		local s = tvb(o + 16, 1):uint()
		info = info .. " status=" .. (conn_status[s] or tostring(s))
	end
	if band(h.flags, F_FRESH) ~= 0 then
		info = info .. " FRESH"
	end
	return info, nil
end

local function dissect_disc(tvb, tree, h)
	local o = HDR_LEN
	if h.length ~= 144 then
		return "DISCOVER (bad length)", "drop: bad length"
	end
	local t = tree:add(tvb(o, 144), "Discover header")
	t:add(pf.disc_nic, tvb(o, 8))
	t:add(pf.disc_query, tvb(o + 8, 1))
	t:add(pf.disc_pad, tvb(o + 9, 7))
	t:add(pf.disc_name, tvb(o + 16, 64), tvb(o + 16, 63):stringz())
	t:add(pf.disc_want, tvb(o + 80, 64), tvb(o + 80, 63):stringz())
	local info = "DISCOVER " .. tvb(o + 16, 63):stringz()
	if tvb(o + 8, 1):uint() == 1 then
		info = info .. " asks for " .. tvb(o + 80, 63):stringz()
	end
	return info, nil
end

local function dissect_nack(tvb, tree, h)
	local o = HDR_LEN
	if h.length ~= 16 then
		return "NACK (bad length)", "drop: bad length"
	end
	local t = tree:add(tvb(o, 16), "Refusal")
	t:add(pf.nack_seq, tvb(o, 4))
	t:add(pf.nack_reason, tvb(o + 4, 1))
	t:add(pf.nack_pad, tvb(o + 5, 3))
	t:add(pf.nack_session, tvb(o + 8, 4))
	t:add(pf.nack_pad, tvb(o + 12, 4))
	local r = tvb(o + 4, 1):uint()
	local info = string.format("NACK seq=%u reason=%s session=0x%x",
		u32(tvb, o), nack_short[r] or tostring(r), u32(tvb, o + 8))
	return info, nack_short[r] == nil and "drop: bad length" or nil
end

local function dissect_pull(tvb, tree, h)
	local o = HDR_LEN
	if h.length ~= 24 then
		return "PULL (bad length)", "drop: bad length"
	end
	local t = tree:add(tvb(o, 24), "Pull request")
	t:add(pf.pull_send, tvb(o, 4))
	t:add(pf.pull_recv, tvb(o + 4, 4))
	t:add(pf.pull_off, tvb(o + 8, 4))
	t:add(pf.pull_len, tvb(o + 12, 4))
	t:add(pf.pull_frag, tvb(o + 16, 2))
	t:add(pf.pull_pad, tvb(o + 18, 6))
	local off, len, frag = u32(tvb, o + 8), u32(tvb, o + 12),
		tvb(o + 16, 2):uint()
	h.copy_key = string.format("P%x.%x.%u.%u", h.src_session,
		u32(tvb, o + 4), off, len)
	local info = string.format(
		"PULL handle=0x%x recv=0x%x off=%u len=%u frag=%u",
		u32(tvb, o), u32(tvb, o + 4), off, len, frag)
	if band(h.flags, F_SYNC) ~= 0 then
		info = info .. " AGAIN"
	end
	local bad = (len == 0 or frag == 0 or off + len > 0xffffffff) and
		"drop: bad fragment" or nil
	return info, bad
end

local function dissect_pull_rep(tvb, tree, h)
	local o = HDR_LEN
	local gone = band(h.flags, F_SYNC) ~= 0	-- GONE
	if gone and h.length == 8 then
		local t = tree:add(tvb(o, 8), "Pull reply: the send is gone")
		t:add(pf.rep_recv, tvb(o, 4))
		t:add(pf.rep_gone, tvb(o + 4, 4))
		return string.format("PULL_REP GONE recv=0x%x handle=0x%x",
			u32(tvb, o), u32(tvb, o + 4)), nil
	end
	if gone or h.length <= 8 then
		return "PULL_REP (bad length)", "drop: bad length"
	end
	local t = tree:add(tvb(o, 8), "Pull reply")
	t:add(pf.rep_recv, tvb(o, 4))
	t:add(pf.rep_off, tvb(o + 4, 4))
	local len = h.length - 8
	t:add(pf.rep_len, len):set_generated()
	tree:add(pf.data, tvb(o + 8, len))
	local off = u32(tvb, o + 4)
	h.copy_key = string.format("R%x.%x.%u", h.src_session, u32(tvb, o),
		off)
	local info = string.format("PULL_REP recv=0x%x off=%u len=%u",
		u32(tvb, o), off, len)
	return info, off + len > 0xffffffff and "drop: bad fragment" or nil
end

local by_type = {
	[T_EAGER] = dissect_eager, [T_ACK] = dissect_ack,
	[T_CONN_REQ] = dissect_conn, [T_CONN_REP] = dissect_conn,
	[T_DISCOVER] = dissect_disc, [T_NACK] = dissect_nack,
	[T_PULL] = dissect_pull, [T_PULL_REP] = dissect_pull_rep,
	[T_PACK] = dissect_pack,
}

------------------------------------------------------------------------
-- Common header and the whole frame.
------------------------------------------------------------------------
local function dissect_common(tvb, tree)
	local h = {
		version = tvb(0, 1):uint(), type = tvb(1, 1):uint(),
		flags = tvb(2, 1):uint(), src_ep = tvb(4, 1):uint(),
		dst_ep = tvb(5, 1):uint(), length = tvb(10, 2):uint(),
		src_session = u32(tvb, 16), dst_session = u32(tvb, 20),
		ack = u32(tvb, 24), filter = u32(tvb, 12),
	}
	local t = tree:add(tvb(0, HDR_LEN), "Common header")
	local v = t:add(pf.version, tvb(0, 1))
	if h.version ~= WIRE_VERSION then
		v:add_proto_expert_info(ex.version)
	end
	t:add(pf.type, tvb(1, 1))
	local fl = t:add(pf.flags, tvb(2, 1))
	for _, f in ipairs({ pf.f_ack, pf.f_sync, pf.f_rndv, pf.f_ctrl,
			pf.f_ping, pf.f_fresh, pf.f_bye, pf.f_sack }) do
		fl:add(f, tvb(2, 1))
	end
	t:add(pf.epoch, tvb(3, 1))
	t:add(pf.src_ep, tvb(4, 1))
	t:add(pf.dst_ep, tvb(5, 1))
	local dp = t:add(pf.dst_peer, tvb(6, 2))
	if tvb(6, 2):uint() == 0xffff then
		dp:append_text(" (none: before connect)")
	end
	t:add(pf.src_peer, tvb(8, 2))
	t:add(pf.length, tvb(10, 2))
	t:add(pf.filter, tvb(12, 4))
	t:add(pf.src_session, tvb(16, 4))
	t:add(pf.dst_session, tvb(20, 4))
	t:add(pf.ack, tvb(24, 4))
	h.csum_item = t:add(pf.csum, tvb(CSUM_OFF, 4))
	return h
end

local function add_csum(tvb, h)
	local status, calc = check_csum(tvb, h.length)
	local it = h.csum_item
	if calc ~= nil then
		it:add(pf.csum_calc, calc):set_generated()
	end
	it:add(pf.csum_status, status):set_generated()
	if status == CSUM_BAD then
		it:add_proto_expert_info(ex.csum_bad, string.format(
			"Bad checksum: 0x%08x, computed 0x%08x",
			tvb(CSUM_OFF, 4):uint(), calc))
	elseif status == CSUM_UNVERIFIED then
		it:add_proto_expert_info(ex.csum_unverified)
	end
	return status
end

function mx.dissector(tvb, pinfo, tree)
	pinfo.cols.protocol = "MX-DPDK"
	local root = tree:add(mx, tvb())
	if tvb:len() < HDR_LEN then
		root:add_proto_expert_info(ex.csum_unverified,
			"Shorter than the common header (drop: short frame)")
		pinfo.cols.info = "MX-DPDK (short frame)"
		return tvb:len()
	end
	local h = dissect_common(tvb, root)
	local status = add_csum(tvb, h)
	local end_off = math.min(HDR_LEN + h.length, tvb:len())
	local info, drop
	local fn = by_type[h.type]
	if status == CSUM_UNVERIFIED then
		info = string.format("type %u (length %u past the frame)",
			h.type, h.length)
	elseif fn == nil then
		info = string.format("type %u", h.type)
		drop = "drop: unknown type"
	else
		info, drop = fn(tvb:range(0, end_off):tvb(), root, h, pinfo)
	end
	if end_off < tvb:len() then
		root:add(pf.padding, tvb(end_off))
	end
	root:set_len(end_off)

	local text = string.format("%u->%u %s", h.src_ep, h.dst_ep, info)
	if band(h.flags, F_ACK_VALID) ~= 0 and h.type ~= T_ACK then
		text = text .. string.format(" ack=%u", h.ack)
	end
	if h.version ~= WIRE_VERSION then	-- checked before the CRC
		text = text .. " [drop: wire version]"
	end
	if status == CSUM_BAD then
		text = text .. " [bad checksum]"
	elseif status == CSUM_GOOD and h.version == WIRE_VERSION then
		if drop ~= nil then
			root:add_proto_expert_info(ex.dropped,
				"A receiver drops this frame: " .. drop)
			text = text .. " [" .. drop .. "]"
		elseif h.copy_key ~= nil then
			local first = note_copy(pinfo, h.copy_key)
			if first ~= nil then
				root:add(pf.retrans, first):set_generated()
				root:add_proto_expert_info(ex.retrans, string.format(
					"Retransmission of frame %u", first))
				text = text .. " [retransmission]"
			end
		end
	end
	pinfo.cols.info = text
	return tvb:len()
end

DissectorTable.get("ethertype"):add(ETHERTYPE, mx)
