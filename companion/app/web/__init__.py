"""Serving the app to browsers: the trust boundary between the table's phones and the server.

Every client is untrusted: its ``Host`` and ``Origin`` headers, whether it has the table code,
and every message it sends. One ASGI layer, :class:`~.gate.TableGate`, stands in front of Flet's
web app (its static files and its ``/ws`` WebSocket), run by uvicorn itself, so that nothing
reaches a screen unchecked. The package's rooms, each read in a sitting:

* :mod:`.addresses`: binding the port, the table code, and the names client addresses count
  under (a device by its full address, IPv4 or IPv6; an IPv6 /64 only for loose second caps).
* :mod:`.gate`: ``Host`` and ``Origin`` (against DNS rebinding and other sites), the table code
  (the join page, which the QR code's address only fills in, its form's deadline, a signed
  cookie, wrong codes limited per address, the QR code's 128-bit key that no limit holds back), and
  the app's own face (:mod:`.face`: manifest, icons, favicon from the package's data).
* :mod:`.devices`: the joined devices, each with a cookie of its own, listed on the invite
  screen and put out one by one (their open connections closed), kept beside the scorekeeper
  file.
* :mod:`.uploads`: files a session asked a browser for, ``PUT /upload/<token>`` to a one-time
  name, bounded in number, bytes held and pace; nothing written to disk, no path from a client.
* :mod:`.limits`: connections per address and in all, with room kept for joined devices,
  headers and bodies timed out, and a stop within 3 s of SIGTERM however many sessions.
* :mod:`.bridge`: Flet's web app, whose sessions never send a traceback, whose closed tabs'
  sessions are kept a minute, whose devices hold a bounded number of sessions; the only place
  that names Flet's private attributes (:func:`.bridge.check_flet` fails loudly without them).
* :mod:`.answers`: the plain HTTP the gate speaks (headers, small bodies with a deadline).

docs/app.md ("Serving it safely") states each limit with its measured figures.
"""

from .addresses import (
    JOIN_KEY_BYTES,
    ServeError,
    address_key,
    bind,
    check_port,
    is_loopback,
    is_wildcard,
    lan_addresses,
    network_key,
    new_code,
    new_join_key,
    qr_png,
    qr_text,
    split_host,
    url_host,
)
from .bridge import (
    CRASH_MESSAGE,
    FLET_PRIVATE,
    HANDLERS,
    SESSION_KEEP_S,
    SESSIONS_PER_DEVICE,
    Devices,
    FletChanged,
    check_flet,
    device_of,
    flet_app,
    is_gone,
)
from .devices import DEVICES_MOST, JoinedDevice, JoinedDevices, device_kind
from .gate import (
    COOKIE,
    COOKIES_TRIED,
    JOIN_BODY_S,
    JOINS_PER_HOUR,
    JOINS_PER_MINUTE,
    TRIES_ADDRESSES,
    TRIES_PER_HOUR,
    TRIES_PER_HOUR_ALL,
    TRIES_PER_HOUR_NETWORK,
    TRIES_PER_MINUTE,
    TRIES_PER_MINUTE_ALL,
    TRIES_PER_MINUTE_NETWORK,
    TableGate,
    Tries,
    table_key,
)
from .limits import (
    CONNECTIONS_IN_ALL,
    CONNECTIONS_OF_STRANGERS,
    CONNECTIONS_PER_ADDRESS,
    HEADERS_WITHIN_S,
    KEEP_ALIVE_S,
    STOP_HARD_S,
    WS_MAX_BYTES,
    Connections,
    Joined,
    Limits,
    serve,
    server_config,
)
from .uploads import (
    UPLOAD_GRACE_S,
    UPLOAD_PATH,
    UPLOADS_HELD_MAX,
    UploadRefused,
    Uploads,
    settle,
)

__all__ = [
    "CONNECTIONS_IN_ALL", "CONNECTIONS_OF_STRANGERS", "CONNECTIONS_PER_ADDRESS", "COOKIE",
    "COOKIES_TRIED", "CRASH_MESSAGE", "DEVICES_MOST", "FLET_PRIVATE", "HANDLERS",
    "HEADERS_WITHIN_S", "JOINS_PER_HOUR", "JOINS_PER_MINUTE", "JOIN_BODY_S", "JOIN_KEY_BYTES",
    "KEEP_ALIVE_S", "SESSIONS_PER_DEVICE", "SESSION_KEEP_S", "STOP_HARD_S", "TRIES_ADDRESSES",
    "TRIES_PER_HOUR", "TRIES_PER_HOUR_ALL", "TRIES_PER_HOUR_NETWORK", "TRIES_PER_MINUTE",
    "TRIES_PER_MINUTE_ALL", "TRIES_PER_MINUTE_NETWORK", "UPLOADS_HELD_MAX", "UPLOAD_GRACE_S",
    "UPLOAD_PATH", "WS_MAX_BYTES", "Connections", "Devices", "FletChanged", "Joined",
    "JoinedDevice", "JoinedDevices", "Limits", "ServeError", "TableGate", "Tries", "UploadRefused",
    "Uploads", "address_key", "bind", "check_flet", "check_port", "device_kind", "device_of",
    "flet_app", "is_gone", "is_loopback", "is_wildcard", "lan_addresses", "network_key", "new_code",
    "new_join_key", "qr_png", "qr_text", "serve", "server_config", "settle", "split_host",
    "table_key", "url_host",
]
