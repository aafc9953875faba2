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


@given(st.lists(matches, max_size=30), st.integers(min_value=1, max_value=10**9))
def test_matches_map_to_rows_of_the_match_table_with_each_participant_s_id(rows, event_id):
    table = RefTable()
    held = MatchRows(table)
    for row in rows:
        held.append(*row)
    ids = [None, *(f"id of {ref}" for ref in table.refs[1:])]  # index 0: a bye has no second participant

    assert list(held.rows_mapped(event_id, ids)) == [
        (event_id, rnd, f"id of {ref1}", f"id of {ref2}" if ref2 else None, g1, g2, draws, elimination)
        for _line, rnd, ref1, ref2, g1, g2, draws, elimination in rows
    ]
