"""bench.timeline's round finder: phases from stamps of two processes, odd rounds left out."""

import pytest

from bench.timeline import rounds

US = 1e-6


def one_round(t0: float) -> tuple[list, list]:
    """A lockstep round starting at t0 (seconds): server stamps and load stamps."""
    server = [(t0, "batch start"), (t0 + 100 * US, "batch end"),
              (t0 + 150 * US, "server sent"), (t0 + 200 * US, "server sent")]
    load = [(t0 + 260 * US, "load frame"), (t0 + 420 * US, "load sent")]
    server += [(t0 + 500 * US, "server read")]
    return server, load


def test_each_phase_is_measured_between_the_right_stamps():
    server, load = [], []
    for t0 in (0.0, 0.001, 0.002):
        s, c = one_round(t0)
        server += s
        load += c
    found = rounds(server, load)
    assert len(found) == 2  # the last batch has no next one to close its round
    first = found[0]
    assert first["arbiter batch"] == pytest.approx(100)
    assert first["server writes"] == pytest.approx(100)  # batch end to the last frame sent
    assert first["to the load"] == pytest.approx(110)  # first frame sent to the first frame decoded
    assert first["load"] == pytest.approx(160)
    assert first["to the server"] == pytest.approx(80)
    assert first["server reads"] == pytest.approx(500)
    assert first["round"] == pytest.approx(1000)


def test_a_round_without_the_load_acting_is_left_out():
    server, load = one_round(0.0)
    server += one_round(0.001)[0]
    load = [stamp for stamp in load if stamp[1] != "load sent"]
    assert rounds(server, load) == []
