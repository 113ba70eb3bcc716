#!/usr/bin/env python3
"""Issue 39's load on `yote gui`, bounded: N idle connections, S stalled
bodies (Content-Length: 5000, nothing sent) and one 1 TB Content-Length,
then a normal page load timed, the server's memory read and its life
checked. Loopback only; everything is closed and the server stopped at
the end (at most about a minute).

    python3 scripts/gui/hostile_load.py --yote target/release/yote --idle 10000 --stalled 130
"""
import argparse
import os
import re
import resource
import socket
import subprocess
import time


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def page_load(port, timeout=10.0):
    started = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    took = time.monotonic() - started
    m = re.match(rb"HTTP/1.1 (\d+)", data)
    return (int(m.group(1)) if m else 0), took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yote", default="target/release/yote")
    ap.add_argument("--idle", type=int, default=10000)
    ap.add_argument("--stalled", type=int, default=130)
    ap.add_argument("--extra", nargs="*", default=[], help="more yote gui flags")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = subprocess.Popen([args.yote, "gui", "--port", "0", *args.extra],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(server.stdout.readline().strip().rstrip("/").rsplit(":", 1)[1])
    held = []
    try:
        print(f"baseline page load: {page_load(port)}; rss {status_kb(server.pid, 'VmRSS')} kB")
        huge = socket.create_connection(("127.0.0.1", port))
        huge.sendall(f"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 1000000000000\r\n\r\n".encode())
        held.append(huge)
        for _ in range(args.stalled):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"POST /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 5000\r\n\r\n".encode())
            held.append(s)
        opened = 0
        opening = time.monotonic()
        for _ in range(args.idle):
            try:
                held.append(socket.create_connection(("127.0.0.1", port), timeout=2))
                opened += 1
            except OSError as e:
                print(f"connect failed after {opened}: {e}")
                break
        took = time.monotonic() - opening
        time.sleep(0.5)
        loads = [page_load(port) for _ in range(5)]
        alive = server.poll() is None
        print(f"{opened} idle (opened in {took:.1f} s) + {args.stalled} stalled + 1 TB Content-Length held")
        print("page loads (status, seconds): " + ", ".join(f"({s}, {t:.3f})" for s, t in loads))
        print(f"server alive: {alive}; VmRSS {status_kb(server.pid, 'VmRSS') // 1024} MB, "
              f"VmHWM {status_kb(server.pid, 'VmHWM') // 1024} MB, threads {status_kb(server.pid, 'Threads')}")
        time.sleep(11)  # past the 10 s head timeout
        print(f"after the head timeout: page load {page_load(port)}; "
              f"VmRSS {status_kb(server.pid, 'VmRSS') // 1024} MB; alive {server.poll() is None}")
    finally:
        for s in held:
            s.close()
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
