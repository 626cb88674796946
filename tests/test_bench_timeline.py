"""bench.timeline's journey finder: each accepted action's phases from stamps of two processes, odd ones left out."""

import pytest

from bench.timeline import journeys

US = 1e-6
SEAT_A, SEAT_B = 40001, 40002  # the seats' ports: how both processes name a connection


def action(t0: float, port: int, ref: int) -> tuple[list, list]:
    """One action sent at t0 (seconds) and answered 700 us later: (server stamps, load stamps)."""
    server = [(t0 + 150 * US, "read", port, ref), (t0 + 200 * US, "batch start", None, None),
              (t0 + 300 * US, "batch end", None, None), (t0 + 320 * US, "sending", SEAT_B, None),
              (t0 + 400 * US, "sending", port, None)]
    load = [(t0, "sent", port, ref), (t0 + 700 * US, "answered", port, ref)]
    return server, load


def test_each_phase_is_measured_between_the_right_stamps_of_the_right_seat():
    server, load = [], []
    for ref, t0 in enumerate((0.0, 0.001)):
        s, c = action(t0, SEAT_A, ref)
        server += s
        load += c
    first, second = journeys(server, load)
    assert first["to the server"] == pytest.approx(150)
    assert first["queued"] == pytest.approx(50)
    assert first["arbiter batch"] == pytest.approx(100)
    assert first["server writes"] == pytest.approx(100)  # to this seat's frame, not the other seat's before it
    assert first["to the load"] == pytest.approx(300)
    assert first["round trip"] == pytest.approx(700)
    assert "turnaround" not in first  # no answer before it
    assert second["turnaround"] == pytest.approx(300)  # from the first answer (0.7 ms) to the next send (1 ms)


def test_an_action_the_server_never_read_or_whose_frame_was_not_stamped_is_left_out():
    server, load = action(0.0, SEAT_A, 1)
    unread = [stamp for stamp in server if stamp[1] != "read"]
    assert journeys(unread, load) == []
    unsent = [stamp for stamp in server if stamp[1:3] != ("sending", SEAT_A)]
    assert journeys(unsent, load) == []
