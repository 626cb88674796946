"""Plain HTTP on the websocket port: the web client's static files, the join URL, and the hand-over of upgrades.

A connection's first bytes are read here with h11 (bounded in size and time). A plain ``GET``/``HEAD`` is
answered from a ``Site``: the files of one folder, loaded into memory once at start-up (only files found
there can ever be served, so no path can reach outside it), with content types, an ``ETag`` and
``Cache-Control: no-cache`` (the browser revalidates and gets ``304``), ``404`` for unknown paths and ``405``
for other methods. Two files are generated, not read: ``/js/codes.js``, the error codes from
``server/protocol/codes.py``, and ``/words.json``, every game's words for people (``rules/words.py``: the browser
says events, cards and results from the same data as the terminal); ``/rules/<game>.md`` is each game's
``rules/<game>/RULES.md`` as it is (the table page's Rules panel), for the games of ``rules.registry`` only.
``/join.json`` and ``/join.svg`` give the lobby page the URL other machines can join at and its QR code;
``/join/<T>.svg`` is the QR code of tournament ``T``'s page at that URL (the venue screen shows it), made on
first request and kept (no more than ``QR_PER_SECOND`` new ones a second). A websocket upgrade is handed back to the caller
as a stream that first replays every byte already read, so the websocket side sees the connection from its first byte.
A caller may see each request head before it is answered (``admit``: a trusted proxy's client is admitted by
the address it names) and have the connection handed back unanswered, the same way, to refuse it.
"""

from __future__ import annotations

import hashlib
import io
import re
from http import HTTPStatus
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import unquote

import h11
import msgspec
import trio

from rules.registry import GAMES
from rules.words import all_words

from .limits import Buckets
from .protocol import JoinInfo
from .protocol.codes import codes_js

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".woff2": "font/woff2",
}


def security_headers(connect_src: str = "'self'") -> list[tuple[str, str]]:
    """Nothing the page loads may come from anywhere but this server (a LAN often has no internet); its
    websocket goes to ``connect_src`` (a cluster node's page follows redirects to the other nodes)."""
    return [
        ("Content-Security-Policy", f"default-src 'self'; img-src 'self' data:; connect-src {connect_src}; "
                                    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]


SECURITY_HEADERS = security_headers()
CLUSTER_CONNECT_SRC = "'self' ws: wss:"  # any node of the cluster, whose nodes come and go
MAX_SITE_BYTES = 8 * 1024 * 1024  # a web folder larger than this is a mistake (the client is ~100 KiB)


@dataclass(frozen=True)
class HttpLimits:
    max_head: int = 16 * 1024  # bytes of a request head: larger is refused with 431
    head_timeout: float = 10.0  # seconds to send a whole request head (also how long an idle connection stays)
    send_timeout: float = 10.0  # seconds to take one response
    max_requests: int = 100  # requests on one kept-alive connection


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    etag: str


@dataclass(frozen=True)
class Site:
    """What plain HTTP serves: ``files`` by path without the leading slash, and the join URLs (first = shown)."""

    files: dict[str, StaticFile] = field(default_factory=dict)
    join_urls: tuple[str, ...] = ()
    security: list[tuple[str, str]] = field(default_factory=lambda: SECURITY_HEADERS)
    busy: str | None = None  # the reason a connection over a limit is refused: every request gets a 503 with it

    def find(self, path: str, peer: str = "") -> StaticFile | None:
        """The file at ``path``, or a tournament's QR code (made for ``peer``, the address asking)."""
        found = self.files.get(path)
        if found is None and self.files and self.join_urls and (qr := TOURNAMENT_QR.fullmatch(path)):
            return tournament_qr(self.join_urls[0], qr.group(1), peer)
        return found


def _static(body: bytes, content_type: str) -> StaticFile:
    return StaticFile(body, content_type, '"' + hashlib.sha256(body).hexdigest()[:20] + '"')


def load_site(root: Path | None, join_urls: tuple[str, ...] = (), connect_src: str = "'self'") -> Site:
    """Read every file under ``root`` (not hidden ones, not ``__pycache__``); ``root`` None serves no files.

    The join URLs become ``join.json`` and ``join.svg`` (a QR code of the first), and the games' words
    ``words.json``, where there is a folder.
    ``connect_src``: where the page may open its websocket (``CLUSTER_CONNECT_SRC`` on a cluster node).
    """
    files: dict[str, StaticFile] = {}
    security = security_headers(connect_src)
    if root is None:
        return Site(files, tuple(join_urls), security)
    root = Path(root).resolve()
    total = 0
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts) or not path.is_file():
            continue
        if not path.resolve().is_relative_to(root):  # a link out of the folder is never served
            continue
        body = path.read_bytes()
        total += len(body)
        if total > MAX_SITE_BYTES:
            raise ValueError(f"the web folder {root} holds more than {MAX_SITE_BYTES} bytes")
        files[relative.as_posix()] = _static(body, CONTENT_TYPES.get(path.suffix, "application/octet-stream"))
    files["words.json"] = _static(msgspec.json.encode(all_words()), CONTENT_TYPES[".json"])
    files["js/codes.js"] = _static(codes_js().encode(), CONTENT_TYPES[".js"])  # the error codes, from the one list
    files.update(rules_files())
    if join_urls:
        info = JoinInfo(url=join_urls[0], urls=list(join_urls))
        files["join.json"] = _static(msgspec.json.encode(info), CONTENT_TYPES[".json"])
        files["join.svg"] = _static(qr_svg(join_urls[0]), CONTENT_TYPES[".svg"])
    return Site(files, tuple(join_urls), security)


TOURNAMENT_QR = re.compile(r"join/(T[0-9]{1,24})\.svg")  # a tournament id's shape (``T`` and its number)
QR_KEPT = 256  # tournaments' QR codes kept made
QR_PER_SECOND = 20.0  # QR codes made a second at most, server-wide (about 6 ms each, on the event loop): a red
# team asking for a new one 291 times a second slowed every player's answers from 3 ms to 320 ms (p99)
QR_PER_ADDRESS, QR_PER_ADDRESS_BURST = 1.0, 4  # ... and by one address (a second, at once): any id makes one,
# so 21 asked for from one address took them all, and a venue screen opened meanwhile had no code (red team 8)
_made_qr: dict[tuple[str, str], StaticFile] = {}
_qr_tokens = [QR_PER_SECOND, 0.0]  # tokens left, and when counted (trio time)
_qr_by_address = Buckets(QR_PER_ADDRESS, QR_PER_ADDRESS_BURST)


def tournament_qr(join_url: str, tournament: str, peer: str = "") -> StaticFile | None:
    """The QR code of a tournament's page (``#/tournament/<T>``) at the join URL: kept once made; None (a 404)
    when more than ``QR_PER_SECOND`` new ones are asked for, or more than ``QR_PER_ADDRESS`` by ``peer`` (a
    venue screen asks for its one, once)."""
    key = (join_url, tournament)
    made = _made_qr.get(key)
    if made is not None:
        return made
    now = trio.current_time()
    _qr_tokens[0] = min(QR_PER_SECOND, _qr_tokens[0] + max(0.0, now - _qr_tokens[1]) * QR_PER_SECOND)
    _qr_tokens[1] = now
    if _qr_tokens[0] < 1 or _qr_by_address.take(peer, 1, now):
        return None
    _qr_tokens[0] -= 1
    made = _made_qr[key] = _static(qr_svg(f"{join_url}#/tournament/{tournament}"), CONTENT_TYPES[".svg"])
    if len(_made_qr) > QR_KEPT:
        del _made_qr[next(iter(_made_qr))]
    return made


RULES_ROOT = Path(__file__).resolve().parent.parent / "rules"


def rules_files() -> dict[str, StaticFile]:
    """``rules/<game>.md``: each registered game's RULES.md, by the registry's names alone (a whitelist: no
    request names a file)."""
    found = {}
    for game in sorted(GAMES):
        path = RULES_ROOT / game / "RULES.md"
        if path.is_file():
            found[f"rules/{game}.md"] = _static(path.read_bytes(), CONTENT_TYPES[".md"])
    return found


def qr_svg(text: str) -> bytes:
    import segno

    out = io.BytesIO()
    segno.make(text, micro=False).save(out, kind="svg", scale=4, border=2, xmldecl=False, title=text)
    return out.getvalue()


def site_path(target: bytes) -> str | None:
    """The file a request target names (``/`` and folders: their ``index.html``), or None if it cannot be one:
    not absolute, not ASCII, a ``.``/``..``/empty segment, a backslash or NUL anywhere."""
    raw = target.split(b"?", 1)[0].split(b"#", 1)[0]
    try:
        text = unquote(raw.decode("ascii"), errors="strict")
    except UnicodeDecodeError:
        return None
    if not text.startswith("/"):
        return None
    if text.endswith("/"):
        text += "index.html"
    parts = text[1:].split("/")
    if any(part in ("", ".", "..") or "\\" in part or "\0" in part for part in parts):
        return None
    return "/".join(parts)


class ReplayStream(trio.abc.Stream):
    """A stream that first gives back ``data`` (bytes already read from ``stream``), then reads ``stream``."""

    def __init__(self, stream: trio.abc.Stream, data: bytes) -> None:
        self.stream = stream
        self._data = data

    @property
    def socket(self):  # what a trio.SocketStream offers, for those who want the peer's address
        return getattr(self.stream, "socket", None)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._data:
            await trio.lowlevel.checkpoint()
            size = len(self._data) if max_bytes is None else max_bytes
            chunk, self._data = self._data[:size], self._data[size:]
            return chunk
        return await self.stream.receive_some(max_bytes)

    async def send_all(self, data) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.stream.aclose()

    def __repr__(self) -> str:
        return f"ReplayStream({self.stream!r})"


def _is_upgrade(request: h11.Request) -> bool:
    return any(name == b"upgrade" and b"websocket" in value.lower() for name, value in request.headers)


def _header(request: h11.Request, wanted: bytes) -> bytes | None:
    for name, value in request.headers:
        if name == wanted:
            return value
    return None


def respond(site: Site, request: h11.Request, peer: str = "") -> tuple[int, list[tuple[str, str]], bytes]:
    """The status, headers and body that answer one plain request from address ``peer`` (a pure function of
    the site, but for the tournaments' QR codes made on request)."""
    if site.busy is not None:
        return 503, [("Content-Type", CONTENT_TYPES[".txt"]), ("Retry-After", "1"), ("Connection", "close")], \
            site.busy.encode()
    if request.method not in (b"GET", b"HEAD"):
        return 405, [("Allow", "GET, HEAD"), ("Content-Type", CONTENT_TYPES[".txt"]),
                     ("Connection", "close")], b"only GET and HEAD here\n"
    path = site_path(request.target)
    found = site.find(path, peer) if path is not None else None
    if found is None:
        body = (b"not found\n" if site.files else
                b"this photofinish server has no web client: connect with the websocket protocol\n")
        return 404, [("Content-Type", CONTENT_TYPES[".txt"])], body
    headers = [("ETag", found.etag), ("Cache-Control", "no-cache")]
    if _header(request, b"if-none-match") == found.etag.encode():
        return 304, headers, b""
    return 200, [("Content-Type", found.content_type)] + headers, found.body


async def _send(conn: h11.Connection, stream: trio.abc.Stream, status: int, headers: list[tuple[str, str]],
                body: bytes, head_only: bool, security: list[tuple[str, str]] = SECURITY_HEADERS) -> None:
    length = [] if status == 304 else [("Content-Length", str(len(body)))]
    data = conn.send(h11.Response(status_code=status, headers=headers + length + security,
                                  reason=HTTPStatus(status).phrase))
    if body and not head_only:
        data += conn.send(h11.Data(data=body))
    data += conn.send(h11.EndOfMessage())
    await stream.send_all(data)


async def serve_http(stream: trio.abc.Stream, site: Site, limits: HttpLimits = HttpLimits(),
                     admit: Callable[[h11.Request], bool] | None = None,
                     peer: Callable[[], str] = lambda: "") -> trio.abc.Stream | None:
    """Answer plain HTTP requests on ``stream`` until it closes, idles or misbehaves (then None: the caller
    closes it), or until a websocket upgrade arrives: then the stream to give the websocket side, which
    replays the upgrade request and anything sent after it. ``admit``, if given, sees each request's head
    before anything answers it; False hands the stream back at once, unanswered, replaying that request
    (the caller refuses it: a trusted proxy's client over its cap). ``peer()``: the client's address, once
    ``admit`` has seen the head (what a QR code made on request is counted against)."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.max_head)
    for _ in range(limits.max_requests):
        raw = bytearray(conn.trailing_data[0])  # the bytes of this request so far, for a hand-over
        request = None
        with trio.move_on_after(limits.head_timeout):
            try:
                while request is None:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        if len(raw) >= limits.max_head:  # h11 checks only what it holds at once
                            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
                        data = await stream.receive_some(limits.max_head)
                        raw += data
                        conn.receive_data(data)
                    elif type(event) is h11.Request:
                        request = event
                    else:  # ConnectionClosed, or anything else where a request should be
                        return None
            except h11.RemoteProtocolError as error:
                status = error.error_status_hint
                text = "request head too large" if status == 431 else "bad request"
                with trio.move_on_after(limits.send_timeout):
                    try:
                        await _send(conn, stream, status, [("Content-Type", CONTENT_TYPES[".txt"]),
                                                           ("Connection", "close")], f"{text}\n".encode(), False)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, h11.LocalProtocolError):
                        pass  # the client is gone, or the answer cannot be framed: close either way
                return None
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return None
        if request is None:
            return None  # no whole request in time
        if admit is not None and not admit(request):
            return ReplayStream(stream, bytes(raw))
        if _is_upgrade(request):
            return ReplayStream(stream, bytes(raw))
        status, headers, body = respond(site, request, peer())
        try:
            with trio.move_on_after(limits.send_timeout) as sending:
                await _send(conn, stream, status, headers, body, request.method == b"HEAD", site.security)
        except (trio.BrokenResourceError, trio.ClosedResourceError, h11.LocalProtocolError):
            return None
        if sending.cancelled_caught or conn.our_state is not h11.DONE or status == 405:
            return None
        try:
            while (event := conn.next_event()) is not h11.PAUSED and event is not h11.NEED_DATA:
                if type(event) is h11.ConnectionClosed:
                    return None
            conn.start_next_cycle()
        except (h11.RemoteProtocolError, h11.LocalProtocolError):
            return None
    return None
