"""A bundle's matches are held packed (ten million of them must fit in memory): they read back as written."""

from hypothesis import given
from hypothesis import strategies as st

from organize.importer.records import MatchRows, RefTable
from organize.importer.values import SMALL_INT_MAX

refs = st.text(alphabet="0123456789ABT-", min_size=1, max_size=12)
games = st.integers(min_value=0, max_value=SMALL_INT_MAX)
matches = st.tuples(
    st.integers(min_value=2, max_value=2**32 - 1),  # a line: a bundle is at most a few gigabytes
    st.integers(min_value=1, max_value=SMALL_INT_MAX),
    refs,
    st.one_of(st.just(""), refs),  # "": a bye
    games,
    games,
    games,
    st.booleans(),
)


@given(st.lists(st.lists(matches, max_size=30), max_size=4))
def test_matches_read_back_in_file_order_as_they_were_checked(events):
    table = RefTable()  # shared by every event of the bundle
    packed = []
    for rows in events:
        held = MatchRows(table)
        for row in rows:
            held.append(*row)
        packed.append(held)

    assert [list(held) for held in packed] == events
    assert [len(held) for held in packed] == [len(rows) for rows in events]


def test_a_participant_s_id_is_kept_once_however_many_rows_name_it():
    table = RefTable()
    first, again = "".join(["10", "01"]), "".join(["100", "1"])  # equal strings, two objects
    assert first is not again

    assert table.kept(first) is table.kept(again) is first
    assert table.index_of("") == 0  # a bye's player 2
