"""Names other people see: a name with a control character or a bidirectional override, or too long, is refused
with bad_name and changes nothing; any other name is taken as typed, less its surrounding spaces."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, strategies as st

from clients.client import ServerError, open_client
from server.app import run_server
from server.names import PERSON_MOST, check_name
from server.protocol import Refusal
from server.protocol.names import BIDI_CONTROLS, INVISIBLE, MARKS_MOST, skeleton


@given(st.text(max_size=60))
def test_a_name_is_taken_in_nfc_as_typed_or_refused_with_the_reason(text):
    try:
        name = check_name(text, "a seat's name", PERSON_MOST)
    except Refusal as error:
        assert error.code == "bad_name"
        stripped = unicodedata.normalize("NFC", text).strip()
        assert len(stripped) > PERSON_MOST or any(
            unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") or c in BIDI_CONTROLS or c in INVISIBLE
            for c in stripped) or piled_marks(stripped) > MARKS_MOST or is_mark(stripped[:1])
    else:
        assert name == unicodedata.normalize("NFC", text).strip() and len(name) <= PERSON_MOST
        assert unicodedata.is_normalized("NFC", name)
        assert not any(unicodedata.category(c) in ("Cc", "Cf") or c in BIDI_CONTROLS or c in INVISIBLE for c in name)
        assert piled_marks(name) <= MARKS_MOST and not is_mark(name[:1])


def is_mark(char: str) -> bool:
    return bool(char) and unicodedata.category(char) in ("Mn", "Me")


def piled_marks(text: str) -> int:
    """The most combining marks in a row anywhere in ``text``."""
    most = run = 0
    for char in text:
        run = run + 1 if is_mark(char) else 0
        most = max(most, run)
    return most


@pytest.mark.parametrize("name, said", [("Z\u0336\u0336\u0336algo", "it has 3 on 'Z'"),
                                        ("A" + "\u0300\u0301\u0302\u0303" * 5, "it has 19 on"),  # (NFC: A + U+0300 is À)
                                        ("\u0301Ana", "at its start")])
def test_a_name_with_marks_piled_on_a_letter_or_before_any_letter_is_refused(name, said):
    """Marks piled on a letter are drawn over the lines above and below (other players' names in a seat list)."""
    with pytest.raises(Refusal) as refused:
        check_name(name, "a seat's name", PERSON_MOST)
    assert refused.value.code == "bad_name" and said in refused.value.message


@pytest.mark.parametrize("name", ["Vi\u1ec7t", "Nguy\u1ec5n", "a\u0308\u0301", "Jos\u00e9", "Ana\u0332"])
def test_two_marks_on_a_letter_are_a_name(name):
    """Vietnamese stacks two marks on a vowel (most have a composed form; a letter with two that has none is kept)."""
    assert check_name(name, "a seat's name", PERSON_MOST) == unicodedata.normalize("NFC", name)


@pytest.mark.parametrize("name", ["Ana\u200b", "\u200b", "\u2060", "\u00adAna", "A\u200dna", "\u3164", "\ufeffAna"])
def test_invisible_and_format_characters_are_refused(name):
    with pytest.raises(Refusal) as refused:
        check_name(name, "a player's name", PERSON_MOST, required=True)
    assert refused.value.code == "bad_name" and "invisible or format" in refused.value.message


def test_a_name_typed_composed_or_decomposed_is_one_name():
    assert check_name("Jos\u00e9", "n", PERSON_MOST) == check_name("Jose\u0301", "n", PERSON_MOST) == "Jos\u00e9"


@pytest.mark.parametrize("one, other", [("Ana", "ANA"), ("Ana", "\u0410na"), ("Ana", "\u0430n\u0430"),
                                        ("Bob", "\u0412\u041e\u0412"), ("Jos\u00e9", "JOSE\u0301"),
                                        ("Pax", "\u03a1\u03b1x"), ("carl", "cari"[:3] + "\u04cf"),
                                        ("Ol1ie", "olLie".lower()), ("Vanya", "\uff36anya"),
                                        ("Ana", "Ana\ufe0f"), ("Ana", "An\U000e0100a"),  # (red team: "Ana" twice)
                                        ("Ana", "\u1d00na"), ("Ana", "A\u0274a"), ("Ana Ben", "Ana  Ben")])
def test_look_alike_names_share_a_skeleton(one, other):
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize("one, other", [("Ana", "Anna"), ("Jos\u00e9", "Jose"), ("Ivan", "\u0418\u0432\u0430\u043d")])
def test_different_names_keep_different_skeletons(one, other):
    assert skeleton(one) != skeleton(other)


@pytest.mark.parametrize("name", ["\x1b[2J\x1b[31mAna", "Ana\nBen", "evil\u202egnp.exe", "x" * 41, "Ana\u200b",
                                  "\u2060"])
async def test_a_seat_a_table_and_a_player_refuse_a_bad_name_and_nothing_changes(nursery, name):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as client:
        table = await client.create_table(game="flag_finish", mode="challenge", seats=2)
        with pytest.raises(ServerError) as refused:
            await client.take_seat(table.table, seat=0, name=name)
        assert refused.value.code == "bad_name" and "seat's name" in refused.value.message
        assert running.lobby.find(table.table).info().seats[0].state == "free"
        with pytest.raises(ServerError) as refused:
            await client.create_table(game="flag_finish", mode="challenge", seats=2, name=name + "y" * 20)
        assert refused.value.code == "bad_name" and len(running.lobby.tables) == 1
        seated = await client.take_seat(table.table, seat=0, name="  Zoë 🏁  ")
        assert running.lobby.find(table.table).info().seats[seated.seat].name == "Zoë 🏁"
        named = await client.create_table(game="flag_finish", mode="challenge", seats=2, name="  Friday final ")
        assert named.name == "Friday final"


async def test_a_tournament_and_its_players_refuse_a_name_with_an_escape_sequence(nursery):
    running = await nursery.start(lambda task_status: run_server("127.0.0.1", 0, task_status=task_status))
    async with open_client(running.url) as client:
        with pytest.raises(ServerError) as refused:
            await client.create_tournament(name="cup\x1b]0;owned\x07", game="flag_finish", mode="challenge", seats=2,
                                           format="swiss", rounds=1)
        assert refused.value.code == "bad_name" and not running.lobby.tournaments.directors
        created = await client.create_tournament(name="cup", game="flag_finish", mode="challenge", seats=2,
                                                 format="swiss", rounds=1)
        tid = created.tournament.tournament
        with pytest.raises(ServerError) as refused:
            await client.register(tid, "\x1b[2JAna")
        assert refused.value.code == "bad_name" and "control characters" in refused.value.message
        assert not running.lobby.tournaments.find(tid).state.players


def test_terminals_draw_a_name_a_server_took_before_these_rules_as_text_never_as_an_escape():
    """An old log's seat name with an escape sequence: `play`/`watch` screens and `tables` lines show it
    inert (U+FFFD where the control characters were), the rest of the line as it was."""
    from clients.tables import describe_table
    from clients.terminal import Terminal
    from server.protocol import SeatInfo, TableInfo

    written: list[str] = []
    Terminal(write=written.append, tty=True).show(["Seat 1: \x1b[2JAna", "plain"])
    assert "\x1b[2J" not in "".join(written) and "\ufffd[2JAna" in "".join(written)
    info = TableInfo(table="t1", name="t1", game="flag_finish", mode="challenge", options={}, seq=0,
                     status="playing", spectators=0, turn_time_ms=0, grace_ms=60000, ordering="fair", fair_ms=50,
                     seats=[SeatInfo(seat=0, state="taken", name="\u202eAna\x07", ping_ms=None)])
    line = describe_table(info)
    assert "\x07" not in line and "\u202e" not in line and "Ana" in line
