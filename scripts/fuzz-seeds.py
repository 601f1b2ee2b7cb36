#!/usr/bin/env python3
"""Writes the fuzz target's seed corpus (tests/fuzz/corpus): one record or a
short sequence of records per file, each a well-formed frame of one type
(the target's 'address' bit fills in sessions and the integrity check).
Record: u8 control, u16 little-endian length, frame.  See fuzz_rx.c."""
import os, struct, sys

out = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus"
os.makedirs(out, exist_ok=True)

def frame(ftype, body, flags=1):
    eth = b"\0" * 12 + struct.pack(">H", 0x88b5)
    hdr = struct.pack(">BBBBBBHHHIIIII", 2, ftype, flags, 0, 0, 0, 0, 0,
                      len(body), 0, 0, 0, 0, 0)
    return eth + hdr + body

def rec(f, ctl=1):
    return struct.pack("<BH", ctl, len(f)) + f

def eager(seq, msg_len, idx, fmax, data, flags=1, match=0):
    count = 1 if msg_len == 0 else (msg_len + fmax - 1) // fmax
    return frame(1, struct.pack(">IIQIBBH", seq, msg_len, match, idx * fmax,
                                idx, count, fmax) + data, flags)

def pack(recs):
    """A PACK frame (type 11) of (seq, flags, match, data) records."""
    body = struct.pack(">H6x", len(recs))
    for seq, flags, match, data in recs:
        body += struct.pack(">IHBxQ", seq, len(data), flags, match) + data
        body += b"\0" * (-len(data) % 8)
    return frame(11, body)

def ptl(kind, flags=0, rlength=0, mlength=0, pt=0, match=1, offset=0,
        hdr_data=0, md=0x3000000000000001, cookie=1, version=2, head=0):
    """A Portals header (proto/portals_wire.h): 16 bytes, then the 8-byte
    words the kind and flags say, big-endian; padded to 'head' bytes (a
    rendezvous's head) if given.  A PUT's rlength and a REPLY's mlength are
    the data's length, not sent."""
    kind_words = {1: {"match"}, 2: {"match", "rlength", "cookie"},
                  3: {"match", "rlength", "mlength", "md", "link"},
                  4: {"cookie"}}
    words = set(kind_words.get(kind, set()))
    if offset and kind != 4:
        flags |= 0x04
        words.add("offset")
    if hdr_data and kind == 1:
        flags |= 0x08
        words.add("data")
    if flags & 0x01 and kind == 1:
        words |= {"md", "link"}
    if cookie and (kind == 3 or (kind == 1 and flags & 0x01)):
        words.add("cookie")
        flags |= 0x10
    h = struct.pack(">BBHIIHH", version << 4 | kind, flags,
                    pt if kind != 4 else 0, 0, 0, 0, 0)
    values = {"match": match, "rlength": rlength, "mlength": mlength,
              "offset": offset, "data": hdr_data, "md": md, "link": 1 << 32,
              "cookie": cookie}
    for w in ("match", "rlength", "mlength", "offset", "data", "md", "link",
              "cookie"):
        if w in words:
            h += struct.pack(">Q", values[w])
    return h.ljust(head, b"\0")

def ptl_rec(body, flags=1):
    """An EAGER frame of the Portals interfaces (control bits 0 and 2:
    addressed to their partner, as its next message)."""
    return rec(eager(1, len(body), 0, 1400, body, flags=flags), ctl=5)

seeds = {
    "ptl-put": ptl_rec(ptl(1, rlength=16) + b"portals put data"),
    "ptl-put-ack": ptl_rec(ptl(1, flags=1, rlength=8, hdr_data=42) +
                           b"ack me!!"),
    "ptl-get": ptl_rec(ptl(2, rlength=100, offset=8)),
    "ptl-ack": ptl_rec(ptl(3, rlength=200, mlength=200)),
    "ptl-reply": ptl_rec(ptl(4, rlength=12, mlength=12) + b"reply bytes!"),
    "ptl-reply-dropped": ptl_rec(ptl(4, flags=2, rlength=64)),
    "ptl-put-large": ptl_rec(struct.pack(">IIHH4x", 72 + 60000, 4097, 1400,
                                         72) + ptl(1, flags=1, head=72),
                             flags=5),
    "ptl-bad-version": ptl_rec(ptl(1, rlength=4, version=9) + b"oops"),
    "ptl-sequence": ptl_rec(ptl(1, rlength=4) + b"one!") +
        ptl_rec(ptl(2, rlength=4)) + ptl_rec(ptl(1, rlength=0)),

    "eager-small": rec(eager(1, 8, 0, 1000, b"abcdefgh")),
    "eager-two-frags": rec(eager(1, 1500, 1, 1000, b"x" * 500)) +
        rec(eager(1, 1500, 0, 1000, b"y" * 1000)),
    "eager-sync": rec(eager(1, 4, 0, 1000, b"sync", flags=3)),
    "rndv": rec(eager(1, 16, 0, 1000, struct.pack(">IIH6x", 100000, 4097,
                                                   1400), flags=5)),
    "notice": rec(eager(1, 0, 0, 1000, b"", flags=9, match=(2 << 32) | 4097)),
    "ack": rec(frame(2, b"")),
    "ping": rec(frame(2, b"", flags=0x11)),
    "ack-frags": rec(frame(2, struct.pack(">IQIQ", 1, 0x5, 2, 0x3fe),
                           flags=0x03)),
    "ack-sack-frags": rec(frame(2, struct.pack(">QIQ", 2, 1, 0x7ff),
                                flags=0x83)),
    "conn-req": rec(frame(3, struct.pack(">QII B7x", 0x020000000001, 5, 0xbeef, 0),
                          flags=0x20)),
    "conn-rep": rec(frame(4, struct.pack(">QII B7x", 0x020000000001, 1, 0xf00d, 0))),
    "discover": rec(frame(5, struct.pack(">QB7x", 1, 1) + b"unit:0".ljust(64, b"\0")
                          + b"unit:1".ljust(64, b"\0"))),
    "nack": rec(frame(6, struct.pack(">IB3xII", 1, 1, 0, 0))),
    "pull": rec(frame(8, struct.pack(">IIIIH6x", 4097, 1, 0, 2800, 1400))),
    "pull-rep": rec(frame(9, struct.pack(">II", 4097, 0) + b"p" * 1400)),
    "pull-gone": rec(frame(9, struct.pack(">II", 1, 4097), flags=0x03)),
    "junk": rec(b"\xa5" * 64, ctl=0),
    "pack": rec(pack([(1, 0, 7, b"abcdefgh"), (2, 2, 8, b"sync"),
                      (3, 0, 9, b""), (4, 8, (1 << 32) | 2, b"")])),
    "pack-late": rec(pack([(3, 0, 1, b"333"), (4, 0, 2, b"4444")])) +
        rec(pack([(1, 0, 3, b"1"), (2, 4, 4, struct.pack(">IIH6x", 100000,
                                                        4097, 1400))])) +
        rec(pack([(1, 0, 3, b"1"), (2, 4, 4, struct.pack(">IIH6x", 100000,
                                                        4097, 1400))])),
    "sequence": rec(eager(2, 8, 0, 1000, b"12345678")) + rec(frame(2, b"")) +
        rec(eager(1, 8, 0, 1000, b"87654321")),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))
