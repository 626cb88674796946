"""`serve --trusted-proxy`: behind a reverse proxy every client is one address, so a trusted proxy's connections
count as the client its ``X-Forwarded-For`` names (``server/gateway/forwarded.py``), for every per-address limit;
any other connection is its TCP peer whatever headers it sends (a client never picks its own address).

The "proxy" is this test on 127.0.0.1 writing the header itself, as nginx would; everything talks to 127.0.0.1.
Waiting for the server is waiting for its counts to change (``until``), never a sleep.
"""

from __future__ import annotations

from ipaddress import ip_network
from types import SimpleNamespace

import pytest
import trio
import trio.testing

from clients.cli import main
from server.app import limit_line
from server.config import ServeConfig
from server.cluster.directory import LocalDirectory
from server.gateway import Gateway, Limits
from server.gateway.connection import kernel_reader
from server.gateway.forwarded import client_address
from server.workers import worker_config
from tests.server.test_limits import answer, probe, start, to_the_close, websocket

PROXY = (ip_network("127.0.0.1"),)


def via(chain: str) -> dict[str, str]:
    return {"X-Forwarded-For": chain}


async def until(ready) -> None:
    """Let the server run until ``ready()`` (each round lets it take what the kernel has for it)."""
    with trio.fail_after(10):
        while not ready():
            await trio.testing.wait_all_tasks_blocked()


async def settled(gateway) -> None:
    """Every connection the gateway counted has been released: nothing open, in all or per address."""
    await until(lambda: gateway.admission.count == 0 and gateway.admission.open == {})


def peers(gateway) -> set[str]:
    return {conn.peer for conn in gateway.connections}


async def get(port: int, forwarded_for: str) -> bytes:
    """A plain ``GET /`` through the "proxy", and all that is answered."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(f"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                          f"X-Forwarded-For: {forwarded_for}\r\n\r\n".encode())
    received = b""
    with trio.fail_after(10):
        while chunk := await stream.receive_some():
            received += chunk
    await stream.aclose()
    return received


async def test_through_a_trusted_proxy_each_forwarded_client_has_its_own_connection_cap(nursery):
    running = await start(nursery, limits=Limits(max_conns_per_address=2, trusted_proxies=PROXY))
    port, gateway = running.port, running.gateway
    async with websocket(port, headers=via("10.0.0.1")) as a, websocket(port, headers=via("10.0.0.1")) as b:
        async with websocket(port, hello=False, headers=via("10.0.0.1")) as third:
            closing = await to_the_close(third)
        assert closing[-1]["type"] == "closing" and closing[-1]["code"] == "too_many_connections"
        assert "2 connections open" in closing[-1]["message"]
        async with websocket(port, headers=via("10.0.0.2")) as other:  # a third from the proxy's address
            assert (await answer(other, probe()))["type"] == "games"
            assert gateway.admission.open == {"10.0.0.1": 2, "10.0.0.2": 1}
            assert peers(gateway) == {"10.0.0.1", "10.0.0.2"}
        for ws in (a, b):
            assert (await answer(ws, probe()))["type"] == "games"
    await settled(gateway)


@pytest.mark.parametrize("proxies", [(), (ip_network("127.0.0.2"),)], ids=["none trusted", "another trusted"])
async def test_a_client_that_is_no_trusted_proxy_cannot_pick_its_own_address(nursery, proxies):
    running = await start(nursery, limits=Limits(max_conns_per_address=2, trusted_proxies=proxies))
    port, gateway = running.port, running.gateway
    async with websocket(port, headers=via("10.9.9.9")), websocket(port, headers={"Forwarded": "for=10.9.9.8"}):
        assert gateway.admission.open == {"127.0.0.1": 2} and peers(gateway) == {"127.0.0.1"}
        async with websocket(port, hello=False, headers=via("10.9.9.7")) as third:
            closing = await to_the_close(third)
        assert closing[-1]["code"] == "too_many_connections"
    await settled(gateway)


async def test_a_spoofed_chain_through_trusted_proxies_keys_the_entry_the_last_untrusted_hop_is(nursery):
    proxies = PROXY + (ip_network("192.168.0.0/16"),)  # the test's "proxy", and a proxy before it
    running = await start(nursery, limits=Limits(max_conns_per_address=1, trusted_proxies=proxies))
    port, gateway = running.port, running.gateway
    async with websocket(port, headers=via("6.6.6.6, 10.0.0.1")), \
            websocket(port, headers=via("6.6.6.6, 10.0.0.3, 192.168.1.1")):
        assert peers(gateway) == {"10.0.0.1", "10.0.0.3"}
        async with websocket(port, hello=False, headers=via("7.7.7.7, 10.0.0.1")) as again:  # 10.0.0.1's cap
            assert (await to_the_close(again))[-1]["code"] == "too_many_connections"
    await settled(gateway)


@pytest.mark.parametrize(("headers", "client"), [
    ([], "127.0.0.1"),  # no header: the proxy itself
    ([(b"x-forwarded-for", b"not an address")], "127.0.0.1"),
    ([(b"x-forwarded-for", b"10.0.0.1, garbage")], "127.0.0.1"),  # where the client should be: no address
    ([(b"x-forwarded-for", b"garbage, 10.0.0.1")], "10.0.0.1"),  # the client's own junk, further left
    ([(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-for", b"10.0.0.1")], "10.0.0.1"),  # two lines, in order
    ([(b"x-forwarded-for", b"10.0.0.1, 127.0.0.1")], "10.0.0.1"),  # a trusted proxy's own entry skipped
    ([(b"x-forwarded-for", b"127.0.0.1, 127.0.0.1")], "127.0.0.1"),  # every one trusted: the leftmost
    ([(b"x-forwarded-for", b"[2001:db8::1]:4711")], "2001:db8::1"),
    ([(b"x-forwarded-for", b"10.0.0.1:4711")], "10.0.0.1"),
    ([(b"x-forwarded-for", b"::ffff:10.0.0.1")], "10.0.0.1"),
    ([(b"x-forwarded-for", b"fe80::1%2")], "fe80::1"),  # one host whatever its zone (red team: each zone a client)
    ([(b"x-forwarded-for", b"[fe80::1%eth0]:4711")], "fe80::1"),
    ([(b"forwarded", b'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https')], "2001:db8:cafe::17"),
    ([(b"forwarded", b"for=unknown")], "127.0.0.1"),
    ([(b"forwarded", b"proto=https")], "127.0.0.1"),
    ([(b"forwarded", b"for=6.6.6.6"), (b"x-forwarded-for", b"10.0.0.1")], "10.0.0.1"),  # X-Forwarded-For first
])
def test_the_client_of_a_trusted_proxy_is_the_rightmost_entry_no_trusted_proxy_wrote(headers, client):
    assert client_address(headers, "127.0.0.1", PROXY) == client


async def test_counts_return_to_zero_after_admitted_refused_and_half_sent_heads(nursery):
    running = await start(nursery, limits=Limits(max_conns_per_address=1, trusted_proxies=PROXY))
    port, gateway = running.port, running.gateway
    async with websocket(port, headers=via("10.0.0.1")):
        half = await trio.open_tcp_stream("127.0.0.1", port)
        await half.send_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.2\r\n")  # no end of head
        async with websocket(port, hello=False, headers=via("10.0.0.1")) as refused:
            assert (await to_the_close(refused))[-1]["code"] == "too_many_connections"
        await until(lambda: gateway.admission.count == 2)  # the admitted one, and the half head in all only
        assert gateway.admission.open == {"10.0.0.1": 1}
        await half.aclose()
        await until(lambda: gateway.admission.count == 1)
    await settled(gateway)


async def test_plain_http_through_a_trusted_proxy_is_admitted_by_its_client_too(nursery):
    running = await start(nursery, limits=Limits(max_conns_per_address=1, trusted_proxies=PROXY))
    async with websocket(running.port, headers=via("10.0.0.1")):
        refused = await get(running.port, "10.0.0.1")
        assert refused.startswith(b"HTTP/1.1 503") and b"too_many_connections" in refused
        answered = await get(running.port, "10.0.0.2")
        assert answered.startswith(b"HTTP/1.1 404") and b"no web client" in answered  # (the test serves none)
    await settled(running.gateway)


async def test_a_proxys_kept_alive_connection_counts_against_the_client_of_its_latest_request(nursery):
    """nginx's upstream ``keepalive`` sends many clients' requests down one connection: each request's client
    is the one counted, so one client's cap is neither spent by another's request nor escaped by it."""
    running = await start(nursery, limits=Limits(max_conns_per_address=1, trusted_proxies=PROXY))
    port, gateway = running.port, running.gateway
    kept = await trio.open_tcp_stream("127.0.0.1", port)

    async def ask(forwarded_for: str) -> bytes:
        await kept.send_all(f"GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {forwarded_for}\r\n\r\n".encode())
        received = b""
        with trio.fail_after(10):
            while b"no web client" not in received and b"too_many_connections" not in received:
                chunk = await kept.receive_some()
                if not chunk:
                    break
                received += chunk
        return received

    assert (await ask("10.0.0.1")).startswith(b"HTTP/1.1 404")
    assert gateway.admission.open == {"10.0.0.1": 1}
    assert (await ask("10.0.0.2")).startswith(b"HTTP/1.1 404")  # the same connection, another client's request
    assert gateway.admission.open == {"10.0.0.2": 1}  # 10.0.0.1's one connection is free again
    async with websocket(port, headers=via("10.0.0.1")) as ws:
        assert (await answer(ws, probe()))["type"] == "games"
        refused = await ask("10.0.0.1")  # 10.0.0.1 is at its cap: its request down the kept connection too
        assert refused.startswith(b"HTTP/1.1 503") and b"too_many_connections" in refused
    await kept.aclose()
    await settled(gateway)


async def test_a_forwarded_clients_budget_and_owner_are_its_own(nursery, autojump_clock):
    running = await start(nursery, limits=Limits(budget_rate=1, budget_burst=3, trusted_proxies=PROXY))
    port, gateway = running.port, running.gateway
    async with websocket(port, headers=via("10.0.0.1")) as flood, websocket(port, headers=via("10.0.0.2")) as other:
        answers = [await answer(flood, probe("list_tables")) for _ in range(4)]
        assert [a["type"] for a in answers] == ["tables", "tables", "tables", "error"]
        assert answers[-1]["code"] == "over_budget"
        assert (await answer(other, probe("list_tables")))["type"] == "tables", "another client behind the proxy"
        assert set(gateway.quotas.budget.buckets) == {"10.0.0.1", "10.0.0.2"}
        assert {conn.owner.address for conn in gateway.connections} == {"10.0.0.1", "10.0.0.2"}


def test_the_kernel_round_trip_is_read_only_for_connections_that_come_through_no_proxy():
    class Sock:
        def getsockopt(self, *args):
            return b""

    def ws(address: str):
        return SimpleNamespace(_stream=SimpleNamespace(socket=Sock()), remote=SimpleNamespace(address=address))

    behind = (ip_network("10.0.0.0/8"),)
    assert kernel_reader(ws("10.0.0.7"), "direct") is not None
    assert kernel_reader(ws("10.0.0.7"), "direct", behind) is None  # the proxy's path, not the client's
    assert kernel_reader(ws("10.0.0.7"), "always", behind) is not None
    assert kernel_reader(ws("::ffff:10.0.0.7"), "direct", behind) is None
    assert kernel_reader(ws("127.0.0.1"), "direct") is None and kernel_reader(ws("::1"), "direct") is None


def test_serve_trusted_proxy_is_repeatable_and_reaches_every_worker(monkeypatch, tmp_path):
    import server.commands

    configs: list[ServeConfig] = []
    monkeypatch.setattr(server.commands, "serve", lambda config: configs.append(config) or 0)
    assert main(["serve", "--data", str(tmp_path), "--port", "9000", "--workers", "2",
                 "--trusted-proxy", "10.1.2.3/8", "--trusted-proxy", "::1"]) == 0
    proxies = (ip_network("10.0.0.0/8"), ip_network("::1"))
    assert configs[0].limits.trusted_proxies == proxies
    assert [worker_config(configs[0], i).limits.trusted_proxies for i in range(2)] == [proxies, proxies]
    gateway = Gateway(lobby=None, directory=LocalDirectory(), limits=configs[0].limits)
    assert "64 from one address (each client behind 10.0.0.0/8, ::1: its own)" in limit_line(None, gateway)
