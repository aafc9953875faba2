"""What a name may hold (players.names): printable text without control or bidirectional control characters."""

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from players.names import BIDI_CONTROLS, name_problem


def test_a_printable_name_is_a_name():
    assert name_problem("Søren Ærø-O'Brien 李小龍") == ""


def test_a_control_character_is_refused_by_its_code_point():
    assert name_problem("Ana\tConceição") == "the name holds a control character (U+0009)"
    assert name_problem("Ana\x85") == "the name holds a control character (U+0085)"


def test_a_bidirectional_control_is_refused_as_reordering_text():
    assert name_problem("evil\u202egpj.exe") == (
        "the name holds a bidirectional control character (U+202E), which reorders text"
    )


def test_the_first_refused_character_is_the_one_named():
    assert name_problem("a\u2066b\x07c") == (
        "the name holds a bidirectional control character (U+2066), which reorders text"
    )
    assert name_problem("a\x07b\u2066c") == "the name holds a control character (U+0007)"


def first_refused(name: str) -> str | None:
    """The rule as Unicode states it, a character at a time: a bidirectional control, or any of category Cc."""
    return next((c for c in name if c in BIDI_CONTROLS or unicodedata.category(c) == "Cc"), None)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_a_name_is_refused_exactly_when_it_holds_a_control_character_and_for_the_first(name):
    refused = first_refused(name)

    problem = name_problem(name)

    assert (problem == "") == (refused is None)
    if refused is not None:
        assert f"(U+{ord(refused):04X})" in problem
