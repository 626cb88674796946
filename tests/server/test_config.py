"""`ServeConfig`: one frozen value, checked when built; each value out of range is refused in one line naming
its flag, and `serve`'s connection limits derive their bursts from the rates."""

from __future__ import annotations

import dataclasses
import math

import pytest

from server.config import ConfigError, ServeConfig, connection_limits
from server.gateway import Limits
from server.quotas import Quotas

REFUSED = [
    (dict(limits=Limits(rate=0)), "--rate is messages a second per connection, more than 0"),
    (dict(limits=Limits(rate=math.inf)), "--rate is"),
    (dict(limits=Limits(rate=math.nan)), "--rate is"),
    (dict(heartbeat=0), "--heartbeat is 0.01..60 seconds"),
    (dict(forget_after=-1), "--forget-after is 0..2592000 seconds (30 days)"),
    (dict(forget_after=math.nan), "--forget-after"),
    (dict(public_url="ws://10.0.0.5:8765"), "--public-url is for a cluster node: give --cluster"),
    (dict(cluster_url="redis://127.0.0.1:6379", host="0.0.0.0"), "with --host 0.0.0.0 say which address"),
    (dict(quotas=Quotas(waiting_per_connection=-1)), "--waiting-per-connection is 0..10000"),
    (dict(quotas=Quotas(waiting_per_address=100_001)), "--waiting-per-address is 0..100000"),
    (dict(quotas=Quotas(playbacks_per_address=10_001)), "--playbacks-per-address is 0..10000"),
    (dict(quotas=Quotas(waiting_expiry=-1.0)), "--waiting-expiry is 0..2592000"),
    (dict(quotas=Quotas(abandoned_after=-1.0)), "--abandoned-after is 0..2592000"),
    (dict(quotas=Quotas(keep_finished=31 * 86400.0)), "--keep-finished is 0..2592000"),
    (dict(quotas=Quotas(registrations_per_connection=-1)), "--registrations-per-connection is 0..100000"),
    (dict(quotas=Quotas(registrations_per_address=100_001)), "--registrations-per-address is 0..100000"),
    (dict(durability="sometimes"), "--durability is one of always, batch, never"),
    (dict(port=70000), "--port is a whole number 0-65535"),
]


@pytest.mark.parametrize("settings, said", REFUSED, ids=[said.split()[0] + str(i) for i, (_, said) in enumerate(REFUSED)])
def test_a_value_out_of_range_is_refused_in_one_line_naming_its_flag(settings, said):
    with pytest.raises(ConfigError) as refused:
        ServeConfig(**settings)
    assert said in refused.value.message and "\n" not in refused.value.message


def test_the_defaults_and_a_cluster_node_with_its_url_are_accepted_and_the_value_is_frozen():
    config = ServeConfig()
    assert (config.host, config.port, config.durability, config.limits, config.quotas) == \
           ("127.0.0.1", 8765, "batch", Limits(), Quotas())
    node = ServeConfig(host="0.0.0.0", cluster_url="redis://127.0.0.1:6379", public_url="ws://10.0.0.5:8765")
    assert node.public_url == "ws://10.0.0.5:8765"
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.port = 1  # type: ignore[misc]


def test_the_bursts_are_twice_the_rates_and_never_below_the_defaults():
    assert (connection_limits(1000.0, 2000.0).burst, connection_limits(1000.0, 2000.0).address_burst) == (2000, 4000)
    low = connection_limits(1.0, 1.0, idle_timeout=5.0)
    assert (low.burst, low.address_burst, low.idle_timeout) == (Limits.burst, Limits.address_burst, 5.0)
    assert connection_limits(math.inf, 1.0).burst == Limits.burst  # no crash: ServeConfig refuses the rate


def test_workers_settings_that_cannot_work_are_refused_with_the_reason():
    from pathlib import Path

    for settings, reason in (({"workers": 0}, "1..256"), ({"workers": 2, "cluster_url": "redis://x:1"}, "--cluster"),
                             ({"workers": 2, "data_dir": None}, "data directory"), ({"workers": 2, "port": 0}, "port")):
        with pytest.raises(ConfigError, match=reason):
            ServeConfig(**{"data_dir": Path("data"), **settings})
