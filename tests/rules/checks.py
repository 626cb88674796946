"""Small checks the rule-by-rule tests share: a refused action changes nothing, and events of one kind."""

from __future__ import annotations

import pytest

from rules import RulesError, digest


def refused_by(apply):
    """``refused(state, actor, action, code)`` for one game's ``apply``: the action is refused with that code
    and a message, and the state is exactly as it was."""

    def refused(state, actor, action, code):
        before = digest(state)
        with pytest.raises(RulesError) as caught:
            apply(state, actor, action)
        assert caught.value.code == code and caught.value.message
        assert digest(state) == before, "a refused action changed the state"
        return caught.value

    return refused


def of(events, kind) -> list:
    """The events of one kind, in order."""
    return [event for event in events if type(event) is kind]
