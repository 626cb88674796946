"""bench/store_wake.py: both modes it compares deliver every message across two processes, and it reports them."""

from bench.store_wake import measure


def test_both_modes_deliver_every_message_from_one_process_to_the_other():
    for woken in (False, True):
        row = measure(woken, subscriptions=3, messages=5, idle_s=0.2)
        assert row["delivered"] == 5
        assert row["mode"] == ("woken" if woken else "polled (floor)")
        assert 0 <= row["p50_ms"] <= row["p99_ms"] and row["idle_pct"] >= 0


def test_the_publish_row_times_publishes_with_frames_kept_in_the_store():
    import trio

    from bench.store_wake import publish_cost

    row = trio.run(publish_cost, 20, 5, 100)
    assert row["kept"] == 20 and row["size"] == 100
    assert row["publish_us"] > 0 and row["bare_us"] > 0
