"""Hostile: pins kernel memory in socket buffers, of the kind named in kind.txt beside it (tcp by default, udp,
unix, netlink). tcp: connections to itself on its own loopback, which a cgroup v1 memory group does not charge unless
memory.kmem.tcp is set; udp: datagrams to its own sockets; unix: socket pairs; netlink: the kernel's replies to
RTM_GETLINK requests. Each decision it opens a few sockets (tcp: connections to itself) with 4 MiB buffers (doubled
by the kernel), never reads them, and sends until the kernel refuses, up to TARGET in all (in child processes once
its own 64 fds are used); then plays on, holding it. A socket the sandbox refuses is said on stderr
(`sockets: refused ...`), and it plays on.
"""
import os
import signal
import socket
import struct
import sys

import ludus

TARGET = 600 << 20
BUF = 4 << 20
PER_DECISION = 4
held = []
sent = [0]
listener = None
chunk = b"x" * (1 << 16)


KIND = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kind.txt")).read().strip() \
    if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kind.txt")) else "tcp"


datagram = b"u" * 65000
# RTM_GETLINK for ifindex 1 (lo), not a dump: one reply each, queued on the socket until its receive buffer is full.
GETLINK = struct.pack("=LHHLL", 32, 18, 1, 0, 0) + struct.pack("=BxHiII", 0, 0, 1, 0, 0)


def one():
    if KIND == "netlink":
        nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        nl.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUF)
        nl.bind((0, 0))
        nl.setblocking(False)
        queued = 0
        for _ in range(20000):
            try:
                nl.send(GETLINK)
            except OSError:  # ENOBUFS: the replies no longer fit
                break
            queued += 1
        held.append((nl,))
        rmem_alloc = struct.unpack("9I", nl.getsockopt(socket.SOL_SOCKET, 55, 36))[0]  # SO_MEMINFO: what it queues
        sent[0] += rmem_alloc
        return
    if KIND == "udp":
        udp_out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUF)
        r.bind(("127.0.0.1", 0))
        size = r.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        for _ in range(size // len(datagram) + 4):  # the kernel drops what the receive buffer cannot take
            udp_out.sendto(datagram, r.getsockname())
        held.append((r, udp_out))
        sent[0] += size
        return
    if KIND == "unix":
        client, server = socket.socketpair()
        for s in (client, server):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUF)
            s.setblocking(False)
        n = 0
        for s in (client, server):
            while True:
                try:
                    n += s.send(chunk)
                except BlockingIOError:
                    break
        held.append((client, server))
        sent[0] += n
        return
    global listener
    if listener is None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUF)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUF)
    client.connect(listener.getsockname())
    server, _ = listener.accept()
    client.setblocking(False)
    n = 0
    while True:
        try:
            n += client.send(chunk)
        except BlockingIOError:
            break
    held.append((client, server))
    sent[0] += n


def batch():
    for _ in range(PER_DECISION):
        if sent[0] >= TARGET:
            return
        one()


def in_child():
    """A child process (64 fds of its own) opens the next batch and holds it; the parent's copies are closed there."""
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        for group in held:
            for s in group:
                s.close()  # the child's copies only: the parent still holds them
        held.clear()
        try:
            batch()
        except OSError:
            pass
        os.write(w, str(sent[0]).encode())
        os.close(w)
        while True:
            signal.pause()
    os.close(w)
    got = os.read(r, 64)
    os.close(r)
    sent[0] = int(got or sent[0])


def act(view, decision):
    if act.refused:
        return 0
    if sent[0] < TARGET:
        if act.children:
            in_child()
        else:
            try:
                batch()
            except OSError as exc:
                if not held and not sent[0]:  # the very first socket: the sandbox refuses the family
                    print(f"sockets: refused {KIND}: {type(exc).__name__} errno={exc.errno}", file=sys.stderr,
                          flush=True)
                    act.refused = True
                    return 0
                print(f"sockets: {type(exc).__name__} errno={exc.errno}: on in children", file=sys.stderr)
                del held[-2:]  # fds for the child's pipe
                act.children = True
        print(f"sockets: held {sent[0] >> 20} MiB", file=sys.stderr, flush=True)
    return 0


act.children = act.refused = False
ludus.run(act)
