"""Tables of rows built in Python sort as django-tables2 sorts them, each row's value read once per key."""

from dataclasses import dataclass

import django_tables2 as tables
from django_tables2.data import TableListData
from hypothesis import given
from hypothesis import strategies as st

from lib.tables import OnePassTable, SortedOnceListData


@dataclass
class Row:
    key: int
    change: float | None
    name: str
    wins: int


class ChangeTable(OnePassTable):
    name = tables.Column()
    change = tables.Column()
    wins = tables.Column(order_by=("-wins", "name"))


class PlainTable(tables.Table):  # django-tables2 sorting the same rows its own way
    name = tables.Column()
    change = tables.Column()
    wins = tables.Column(order_by=("-wins", "name"))


rows = st.lists(
    st.builds(
        Row,
        key=st.integers(),
        change=st.one_of(st.none(), st.floats(min_value=-50, max_value=50, allow_nan=False)),
        name=st.sampled_from(["Ada", "Bo", "Cy", "Di"]),
        wins=st.integers(min_value=0, max_value=3),
    ),
    max_size=40,
)
orders = st.lists(st.sampled_from(["name", "-name", "change", "-change", "wins", "-wins"]), min_size=1, max_size=3)


@given(rows=rows, order=orders)
def test_rows_come_in_the_order_django_tables2_gives(rows, order):
    ours = ChangeTable(list(rows), order_by=order)
    theirs = PlainTable(list(rows), order_by=order)

    assert isinstance(ours.data, SortedOnceListData) and type(theirs.data) is TableListData
    assert [row.record.key for row in ours.rows] == [row.record.key for row in theirs.rows]


def test_the_largest_change_comes_first_and_a_missing_one_last():
    table = ChangeTable([Row(1, None, "Ada", 0), Row(2, 3.5, "Bo", 1), Row(3, 12.0, "Cy", 2)], order_by="-change")

    assert [row.record.name for row in table.rows] == ["Cy", "Bo", "Ada"]
    assert table.order_by == ("-change",)


def test_cells_are_escaped_as_django_escapes_them():
    from django.utils.html import conditional_escape
    from django.utils.safestring import mark_safe
    from django.utils.translation import gettext_lazy

    from lib.escaping import escaped

    values = ["<b>&'\"", mark_safe("<b>kept</b>"), gettext_lazy("Player"), 12, 66.67, None]
    assert [escaped(value) for value in values] == [conditional_escape(value) for value in values]
