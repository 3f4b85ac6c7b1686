"""Webhook receivers as an adversary writes them, each a TCP server on the loopback in threads of its
own: one that drips its answer's headers a byte at a time, one that answers at once and then drips
the body, one that streams hundreds of megabytes, one that redirects elsewhere. Each counts the
connections it had open at once and the bytes it got out."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000000\r\n\r\n"


@dataclass
class Hostile:
    """``mode``: ``drip_head``, ``drip_body``, ``huge`` or ``redirect`` (to ``location``)."""

    mode: str
    drip_seconds: float = 0.5
    huge_bytes: int = 300 * 1024 * 1024
    location: str = ""
    port: int = 0
    connections: int = 0
    open_now: int = 0
    most_open: int = 0
    sent: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def _serve(self, conn: socket.socket) -> None:
        with self._lock:
            self.connections += 1
            self.open_now += 1
            self.most_open = max(self.most_open, self.open_now)
        try:
            conn.settimeout(30)
            _read_request(conn)
            if self.mode == "drip_head":
                self._drip(conn, HEAD)
            elif self.mode == "drip_body":
                self._send(conn, HEAD)
                self._drip(conn, b"x" * 1_000_000)
            elif self.mode == "huge":
                self._send(
                    conn,
                    b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\n"
                    + f"content-length: {self.huge_bytes}\r\n\r\n".encode(),
                )
                chunk = b"=" * (1024 * 1024)
                for _ in range(self.huge_bytes // len(chunk)):
                    if self._stop.is_set():
                        break
                    self._send(conn, chunk)
            elif self.mode == "redirect":
                self._send(
                    conn,
                    f"HTTP/1.1 307 Temporary Redirect\r\nlocation: {self.location}\r\n"
                    "content-length: 0\r\n\r\n".encode(),
                )
        except OSError:
            pass  # the client hung up: what a bounded client does
        finally:
            with self._lock:
                self.open_now -= 1
            with contextlib.suppress(OSError):
                conn.close()

    def _send(self, conn: socket.socket, data: bytes) -> None:
        conn.sendall(data)
        with self._lock:
            self.sent += len(data)

    def _drip(self, conn: socket.socket, data: bytes) -> None:
        for i in range(len(data)):
            ends = time.monotonic() + self.drip_seconds
            while time.monotonic() < ends:  # a byte per drip, watching for the client hanging up
                if self._stop.is_set() or _hung_up(conn, min(0.05, self.drip_seconds)):
                    return
            self._send(conn, data[i : i + 1])


def _hung_up(conn: socket.socket, wait: float) -> bool:
    readable, _, _ = select.select([conn], [], [], wait)
    if not readable:
        return False
    try:
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _read_request(conn: socket.socket) -> None:
    """The request's head and its body (by its content-length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        more = conn.recv(65536)
        if not more:
            return
        body += more


@contextlib.contextmanager
def hostile(mode: str, **options: object) -> Iterator[Hostile]:
    rec = Hostile(mode, **options)  # type: ignore[arg-type]
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    rec.port = server.getsockname()[1]

    def accept() -> None:
        while not rec._stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=rec._serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        rec._stop.set()
        thread.join(timeout=2)
        server.close()
        time.sleep(0.05)


def rss_bytes() -> int:
    """This process's resident memory (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
