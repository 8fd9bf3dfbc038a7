"""Where the app listens, and the names client addresses count under for the limits."""

from __future__ import annotations

import ipaddress
import re
import secrets
import socket
from urllib.parse import urlsplit

from chickenfoot.rules.errors import InputError


class ServeError(InputError):
    """The app cannot be served as asked (port taken, address not on this machine)."""


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host in ("", "*", "0.0.0.0", "::", "[::]")


def url_host(host: str) -> str:
    """``host`` as it is written in a URL: an IPv6 address in brackets (``http://[fd00::1]:8550/``),
    anything else as it is."""
    bare = host.strip("[]")
    try:
        return f"[{bare}]" if ipaddress.ip_address(bare).version == 6 else bare
    except ValueError:
        return host


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ServeError(f"--port must be between 1 and 65535 (or 0 for a free one), not {port}")
    return port


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or :class:`ServeError` saying why not, in one line.

    Binding here, before anything is printed, is how ``chickenfoot app`` knows the address works
    before it says "serving at"; uvicorn then serves on this very socket.
    """
    check_port(port)
    name = "" if is_wildcard(host) else host.strip("[]")
    try:
        infos = socket.getaddrinfo(name or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ServeError(f"cannot listen on {host!r}: not an address of this machine "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    # A wildcard listens on IPv4's 0.0.0.0 (every phone on the network reaches it).
    infos.sort(key=lambda i: i[0] != socket.AF_INET)
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(1024)  # a burst of connections waits to be taken, not refused
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise ServeError(f"port {port} on {host or '0.0.0.0'} is in use (is the app already "
                             "running? open its address, or pick another --port)") from None
        if exc.errno in (13, 10013):  # EACCES
            raise ServeError(f"port {port} needs administrator rights here; pick one above 1023 "
                             "with --port") from None
        raise ServeError(f"cannot listen on {host or '0.0.0.0'}:{port} "
                         f"({exc.strerror or exc})") from None
    sock.setblocking(False)
    return sock


def lan_addresses() -> list[str]:
    """This machine's address on the local network (where phones reach it), if any."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent; this only picks the outgoing interface
            ip = s.getsockname()[0]
    except OSError:
        return []
    return [] if ip.startswith("127.") else [ip]


def new_code() -> str:
    return f"{secrets.randbelow(10**6):06d}"


#: Random bytes of the key the QR code's address holds (``/join?key=...``): 128 bits, which no
#: number of tries guesses, so a join with it is never counted nor held back by wrong codes,
#: and a phone kept out of typing the code (its own mistakes, or a stranger guessing from its
#: network) joins by scanning the QR code shown at the table.
JOIN_KEY_BYTES = 16


def new_join_key() -> str:
    """A key for the QR code's address, URL-safe (22 characters)."""
    return secrets.token_urlsafe(JOIN_KEY_BYTES)


def qr_text(url: str) -> str:
    """The QR code of ``url`` drawn with block characters, for a terminal."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m", micro=False).terminal(out=out, border=2, compact=True)
    return out.getvalue()


def qr_png(url: str, scale: int = 8) -> bytes:
    """The QR code of ``url`` as a PNG (black on white, with its quiet zone)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m", micro=False).save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_key(host: str) -> str:
    """The name one device counts under for every limit that can lock it out or cap it (wrong
    codes, connections, sessions): its full address, IPv4 or IPv6 alike (an IPv4 address mapped
    into IPv6 as IPv4). On a home network with SLAAC every phone has its own address in one
    shared /64, so keying by the /64 would let one device's limits fall on all of them."""
    ip = _ip(host)
    return host if ip is None else str(ip)


def network_key(host: str) -> str:
    """The wider name an address also counts under, for loose second caps only: an IPv6
    address's /64 (one device can take any number of addresses in it), an IPv4 address itself
    (a network's addresses are few: 254 in a /24)."""
    ip = _ip(host)
    if ip is None:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def split_host(value: str) -> tuple[str, int | None] | None:
    """``("192.168.1.5", 8550)`` from a ``Host`` header; None when it is not one."""
    try:
        parts = urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.username or parts.password or parts.path or parts.query:
        return None
    if not re.fullmatch(r"[a-z0-9.\-]+|[0-9a-f:.]+", host):
        return None
    return host.lower(), port
