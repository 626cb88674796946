"""Plain HTTP on the websocket port: the web client's files, the join URL, refusals, and websockets beside them.

Request handling is tested on memory streams (pure, virtual time); the port itself over real loopback sockets,
where the socket is what is tested.
"""

from __future__ import annotations

import h11
import msgspec
import pytest
import trio
import trio.testing
from hypothesis import given, strategies as st

from clients.client import open_client
from server.app import run_server
from server.http import CLUSTER_CONNECT_SRC, HttpLimits, Site, load_site, serve_http, site_path
from server.lan import join_urls, lan_addresses
from server.protocol import JoinInfo

from .conftest import WEB_ROOT

JOIN = ("http://192.168.1.20:8765/", "http://10.0.0.5:8765/")


@pytest.fixture(scope="module")
def site() -> Site:
    return load_site(WEB_ROOT, JOIN)


def request_bytes(target: str = "/", method: str = "GET", headers: list[tuple[str, str]] = ()) -> bytes:
    client = h11.Connection(h11.CLIENT)
    data = client.send(h11.Request(method=method, target=target, headers=[("Host", "x"), *headers]))
    return data + client.send(h11.EndOfMessage())


def parse_responses(data: bytes, methods: list[str]) -> list[tuple[h11.Response, bytes]]:
    """Every response in ``data``, answering requests made with ``methods`` in order."""
    client = h11.Connection(h11.CLIENT)
    answers = []
    for method in methods:
        client.send(h11.Request(method=method, target="/", headers=[("Host", "x")]))
        client.send(h11.EndOfMessage())
        client.receive_data(data)
        data = b""
        response, body = None, b""
        while (event := client.next_event()) is not h11.NEED_DATA:
            if type(event) is h11.Response:
                response = event
            elif type(event) is h11.Data:
                body += event.data
            elif type(event) is h11.EndOfMessage:
                break
        answers.append((response, body))
        if client.our_state is h11.MUST_CLOSE or client.their_state is h11.MUST_CLOSE:
            break
        client.start_next_cycle()
    return answers


async def exchange(site: Site, data: bytes, limits: HttpLimits = HttpLimits(), peer: str = "") -> tuple[bytes, object]:
    """Send ``data`` (from address ``peer``) then end the sending side; what the server answered and what
    serve_http returned."""
    ours, theirs = trio.testing.memory_stream_pair()
    await ours.send_all(data)
    await ours.send_eof() if hasattr(ours, "send_eof") else None
    received = bytearray()
    async with trio.open_nursery() as nursery:
        result = []

        async def server():
            result.append(await serve_http(theirs, site, limits, peer=lambda: peer))
            await theirs.aclose()

        nursery.start_soon(server)
        while chunk := await ours.receive_some():
            received += chunk
    return bytes(received), result[0]


def header(response: h11.Response, name: str) -> str | None:
    return next((v.decode() for k, v in response.headers if k == name.encode()), None)


async def test_the_lobby_page_its_scripts_and_styles_have_their_content_types_and_an_etag(site):
    data, _ = await exchange(site, request_bytes("/") + request_bytes("/js/app.js") + request_bytes("/style.css"))
    (index, body), (script, _), (style, _) = parse_responses(data, ["GET"] * 3)
    assert (index.status_code, script.status_code, style.status_code) == (200, 200, 200)
    assert header(index, "content-type") == "text/html; charset=utf-8"
    assert header(script, "content-type") == "text/javascript; charset=utf-8"
    assert header(style, "content-type") == "text/css; charset=utf-8"
    assert body == (WEB_ROOT / "index.html").read_bytes()
    assert header(index, "etag") and header(index, "cache-control") == "no-cache"
    assert "default-src 'self'" in header(index, "content-security-policy")


async def test_a_page_connects_only_to_its_server_unless_it_is_a_cluster_nodes_that_redirects(site):
    data, _ = await exchange(site, request_bytes("/"))
    [(alone, _)] = parse_responses(data, ["GET"])
    assert "connect-src 'self';" in header(alone, "content-security-policy")
    data, _ = await exchange(load_site(WEB_ROOT, JOIN, connect_src=CLUSTER_CONNECT_SRC), request_bytes("/"))
    [(node, _)] = parse_responses(data, ["GET"])
    policy = header(node, "content-security-policy")
    assert "connect-src 'self' ws: wss:;" in policy and "default-src 'self';" in policy  # websockets only


async def test_a_known_etag_gets_304_without_a_body(site):
    etag = site.find("index.html").etag
    data, _ = await exchange(site, request_bytes("/", headers=[("If-None-Match", etag)]))
    [(response, body)] = parse_responses(data, ["GET"])
    assert response.status_code == 304 and body == b""


async def test_head_gets_the_headers_and_no_body(site):
    data, _ = await exchange(site, request_bytes("/", method="HEAD"))
    [(response, body)] = parse_responses(data, ["HEAD"])
    assert response.status_code == 200 and body == b""
    assert int(header(response, "content-length")) == len((WEB_ROOT / "index.html").read_bytes())


@pytest.mark.parametrize("target", ["/nope.html", "/../pyproject.toml", "/js/../../cli.py", "/%2e%2e/cli.py",
                                    "/js/..%2f..%2fcli.py", "/..\\cli.py", "//etc/passwd", "/.hidden",
                                    "/%00", "/js/", "/caf%C3%A9"])
async def test_unknown_paths_and_every_way_out_of_the_folder_get_404(site, target):
    data, _ = await exchange(site, request_bytes(target))
    [(response, body)] = parse_responses(data, ["GET"])
    assert response.status_code == 404
    assert b"import" not in body and b"[project]" not in body


async def test_other_methods_get_405_and_the_connection_closes(site):
    data, handed = await exchange(site, request_bytes("/", method="POST") + request_bytes("/"))
    answers = parse_responses(data, ["POST", "GET"])
    assert [r.status_code for r, _ in answers] == [405]
    assert header(answers[0][0], "allow") == "GET, HEAD"
    assert handed is None


async def test_a_too_large_head_gets_431(site):
    data, _ = await exchange(site, request_bytes("/", headers=[("X-Big", "a" * 20_000)]))
    [(response, _)] = parse_responses(data, ["GET"])
    assert response.status_code == 431


async def test_garbage_gets_400(site):
    data, _ = await exchange(site, b"NOT HTTP AT ALL\r\n\r\n")
    [(response, _)] = parse_responses(data, ["GET"])
    assert response.status_code == 400


async def test_a_silent_connection_is_closed_after_the_head_timeout(site, autojump_clock):
    ours, theirs = trio.testing.memory_stream_pair()
    await ours.send_all(b"GET / HTTP/1.1\r\nHost:")  # and never the rest
    start = trio.current_time()
    assert await serve_http(theirs, site, HttpLimits(head_timeout=5)) is None
    assert trio.current_time() - start == pytest.approx(5)


async def test_a_websocket_upgrade_is_handed_over_with_every_byte_already_read(site):
    data = request_bytes("/") + b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nFRAME"
    ours, theirs = trio.testing.memory_stream_pair()
    await ours.send_all(data)
    handed = await serve_http(theirs, site)
    assert handed is not None
    replayed = await handed.receive_some()
    assert replayed == b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nFRAME"


async def test_admit_sees_every_head_and_false_hands_that_request_back_unanswered(site):
    seen = []
    ours, theirs = trio.testing.memory_stream_pair()
    await ours.send_all(request_bytes("/") + request_bytes("/index.html"))
    await serve_http(theirs, site, HttpLimits(max_requests=2), lambda head: seen.append(head) or True)
    await theirs.aclose()
    answered = b""
    while chunk := await ours.receive_some():
        answered += chunk
    assert answered.count(b"HTTP/1.1 200") == 2, "both requests admitted and answered"
    assert [head.target for head in seen] == [b"/", b"/index.html"], "a proxy's next request may be another's"
    ours, theirs = trio.testing.memory_stream_pair()
    await ours.send_all(request_bytes("/") + request_bytes("/index.html"))
    handed = await serve_http(theirs, site, admit=lambda head: head.target == b"/")
    answered = b""
    while b"\r\n\r\n" not in answered:  # the first request's answer, whole (its body follows its head)
        answered += await ours.receive_some()
    assert answered.startswith(b"HTTP/1.1 200")
    replayed = b""
    while len(replayed) < len(request_bytes("/index.html")):
        replayed += await handed.receive_some()
    assert replayed == request_bytes("/index.html")  # nothing answered: the caller refuses it


async def test_join_json_and_svg_give_the_first_lan_url_and_its_qr_code(site):
    data, _ = await exchange(site, request_bytes("/join.json") + request_bytes("/join.svg"))
    (info, body), (svg, picture) = parse_responses(data, ["GET", "GET"])
    assert msgspec.json.decode(body, type=JoinInfo) == JoinInfo(url=JOIN[0], urls=list(JOIN))
    assert header(svg, "content-type") == "image/svg+xml" and picture.startswith(b"<svg")


async def test_a_tournaments_qr_code_is_its_page_at_the_join_url_and_nothing_else_is_made(site):
    """The venue screen's QR code: ``/join/<T>.svg`` encodes the tournament's page at the first LAN URL; a path
    that is not a tournament id is a 404, as is any QR code on a server without a web folder."""
    data, _ = await exchange(site, request_bytes("/join/T7.svg") + request_bytes("/join/T7%20x.svg")
                             + request_bytes("/join/" + "T" * 41 + ".svg") + request_bytes("/join/T7.png"))
    (svg, picture), *refused = parse_responses(data, ["GET"] * 4)
    assert svg.status_code == 200 and header(svg, "content-type") == "image/svg+xml"
    assert picture.startswith(b"<svg") and f"<title>{JOIN[0]}#/tournament/T7</title>".encode() in picture
    assert [response.status_code for response, _ in refused] == [404, 404, 404]
    data, _ = await exchange(load_site(None, JOIN), request_bytes("/join/T7.svg"))
    assert parse_responses(data, ["GET"])[0][0].status_code == 404


async def test_words_json_is_the_games_words_the_terminal_says_too(site):
    """One source of words for people: the browser's sentences come from the same data as the terminal's."""
    from rules.words import all_words

    data, _ = await exchange(site, request_bytes("/words.json"))
    [(response, body)] = parse_responses(data, ["GET"])
    assert response.status_code == 200 and header(response, "content-type").startswith("application/json")
    assert msgspec.json.decode(body) == all_words()


@pytest.mark.parametrize("game", ["flag_finish", "flush", "race_to_the_finish", "checkered_flag", "finish_line"])
async def test_each_games_rules_are_served_for_the_table_pages_rules_panel(site, game):
    from rules.registry import GAMES

    data, _ = await exchange(site, request_bytes(f"/rules/{game}.md"))
    [(response, body)] = parse_responses(data, ["GET"])
    assert response.status_code == 200 and header(response, "content-type") == "text/markdown; charset=utf-8"
    assert body == (WEB_ROOT.parents[1] / "rules" / game / "RULES.md").read_bytes()
    assert game in GAMES


@pytest.mark.parametrize("target", ["/rules/registry.py", "/rules/nope.md", "/rules/flush/RULES.md",
                                    "/rules/..%2fpyproject.toml", "/rules/words.md"])
async def test_only_the_games_rules_are_served_from_rules(site, target):
    data, _ = await exchange(site, request_bytes(target))
    [(response, _)] = parse_responses(data, ["GET"])
    assert response.status_code == 404


async def test_without_a_web_folder_nothing_is_served():
    data, _ = await exchange(load_site(None, JOIN), request_bytes("/") + request_bytes("/join.json"))
    [(response, body)] = parse_responses(data, ["GET"])[:1]
    assert response.status_code == 404 and b"websocket" in body


@given(st.text(alphabet="/.%2eE\\abc", max_size=24))
def test_a_site_path_never_climbs_out_or_names_a_hidden_segment(target):
    path = site_path(("/" + target).encode())
    assert path is None or all(part not in ("", ".", "..") for part in path.split("/"))


def test_join_urls_list_lan_addresses_for_a_wildcard_host_and_the_host_itself_otherwise():
    assert lan_addresses(["127.0.0.1", "169.254.1.1", "172.17.0.1", "10.1.2.3", "192.168.0.9", "x"]) == [
        "192.168.0.9", "10.1.2.3", "172.17.0.1"]
    assert join_urls("0.0.0.0", 8765, ["192.168.0.9"]) == ("http://192.168.0.9:8765/",)
    assert join_urls("0.0.0.0", 8765, []) == ("http://127.0.0.1:8765/",)
    assert join_urls("127.0.0.1", 80) == ("http://127.0.0.1:80/",)
    assert join_urls("::1", 80) == ("http://[::1]:80/",)


# ------------------------------------------------------------------ the real port


async def test_http_and_the_websocket_protocol_share_one_port(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, web_root=WEB_ROOT,
                                                                 task_status=task_status))
    stream = await trio.open_tcp_stream("127.0.0.1", running.port)
    await stream.send_all(request_bytes("/js/protocol.js", headers=[("Connection", "close")]))
    received = b""
    with trio.fail_after(5):
        while chunk := await stream.receive_some():
            received += chunk
    [(response, body)] = parse_responses(received, ["GET"])
    assert response.status_code == 200 and body == (WEB_ROOT / "js" / "protocol.js").read_bytes()

    async with open_client(running.url) as client:
        assert "flag_finish" in [game.name for game in await client.list_games()]

    await running.shutdown()


async def test_one_address_asking_for_new_qr_codes_leaves_the_others_theirs(site, autojump_clock):
    """red team 8: 21 requests for new QR codes (``/join/T<n>.svg``, any number) from one address took the
    whole server's ``QR_PER_SECOND``, and a venue screen opened meanwhile got a 404 for its tournament's
    code (it asks once: no QR code to scan all evening). New ones are also limited per address now."""
    from server import http

    await trio.sleep(2)  # the server-wide tokens full again, whatever the tests before took
    burst = b"".join(request_bytes(f"/join/T{n}.svg") for n in range(5000, 5000 + 2 * int(http.QR_PER_SECOND)))
    data, _ = await exchange(site, burst, peer="10.0.0.1")
    statuses = [response.status_code for response, _ in parse_responses(data, ["GET"] * 2 * int(http.QR_PER_SECOND))]
    assert statuses.count(200) <= http.QR_PER_ADDRESS_BURST
    data, _ = await exchange(site, request_bytes("/join/T42.svg"), peer="10.0.0.2")  # the venue screen
    assert parse_responses(data, ["GET"])[0][0].status_code == 200


async def test_a_client_that_leaves_mid_request_costs_nothing_but_its_connection(site):
    ours, theirs = trio.testing.memory_stream_pair()
    await ours.send_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
    await ours.aclose()
    assert await serve_http(theirs, site) is None


async def test_new_qr_codes_are_made_no_faster_than_the_server_allows_and_one_made_is_kept(site, autojump_clock):
    """A red team asked for a fresh QR code 291 times a second (each about 6 ms on the event loop): every
    player's answers slowed a hundredfold. New ones are made at most ``QR_PER_SECOND`` a second, server-wide;
    one made is served again however many are asked for meanwhile."""
    from server import http

    first = request_bytes("/join/T1.svg")
    await exchange(site, first)  # made, and kept
    burst = b"".join(request_bytes(f"/join/T{n}.svg") for n in range(100, 100 + 2 * int(http.QR_PER_SECOND)))
    data, _ = await exchange(site, burst + first)
    asked = 2 * int(http.QR_PER_SECOND) + 1
    statuses = [response.status_code for response, _ in parse_responses(data, ["GET"] * asked)]
    assert statuses.count(200) <= http.QR_PER_SECOND + 1 and 404 in statuses
    assert statuses[-1] == 200  # the one made before
    await trio.sleep(1)  # a second later: new ones again
    data, _ = await exchange(site, request_bytes("/join/T999.svg"))
    assert parse_responses(data, ["GET"])[0][0].status_code == 200
