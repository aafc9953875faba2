"""What every table of the site shares (django-tables2): the template, paging, the cells' labels, and tables
whose rows are built in one pass.

django-tables2 gives the columns, their headers, sorting and the pages; the
rows of the page shown are built in one pass (`OnePassTable.body_rows`, shown
by ONE_PASS_TEMPLATE) from the cells each table's `cells()` describes, as the
player pages' histories are (public.player_tables.EventGroupedTable).
Rendering cell by cell through django-tables2 (an accessor, a signature
inspection, an attrs dict and a format_html per cell) cost most of the event
list's, the event page's and the player search's time, and the organizers'
preview of a large event's rating changes.
"""

import functools
from collections.abc import Callable
from functools import cached_property

import django_tables2 as tables
from django.core.paginator import EmptyPage
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django_countries.fields import Country
from django_tables2.data import TableData, TableListData
from django_tables2.utils import Accessor, OrderBy

from lib.counting import CountKept
from lib.escaping import escaped

TABLE_TEMPLATE = "players/table.html"
# An event's tables of its players (standings, rating changes, an organizer's preview of them): rows a page.
EVENT_PLAYERS_PER_PAGE = 100


def configure(request, table, *, per_page: int):
    """Sort and paginate `table` from the request, like django-tables2's RequestConfig, at a fixed page size.

    A visitor's ?per_page= is not honoured: a page never grows to a whole history or the whole player list.
    """
    table.request = request
    order_by = request.GET.getlist(table.prefixed_order_by_field)
    if order_by and table.orderable:
        table.order_by = order_by
    try:
        page = int(request.GET.get(table.prefixed_page_field, 1))
    except ValueError:
        page = 1
    try:
        table.paginate(page=page, per_page=per_page)
    except EmptyPage:  # past the end (or before the start): the last page
        table.page = table.paginator.page(table.paginator.num_pages)
    return table


def cell(label: str, css: str = "", short: str = "") -> dict:
    """Column attrs: `data-label` (or the shorter `data-short`) names the value when a row is a card on a phone."""
    td = {"data-label": label, "data-short": short or label}
    if css:
        td["class"] = css
    return {"td": td, "th": {"class": css} if css else {}}


def country_label(country):
    """Flag and name of a django-countries Country; '—' when unknown."""
    if not country:
        return "—"
    if country.flag_url is None and country.custom_countries is None:  # a plain CountryField's: the same for all
        return _country_label(country.code, get_language())
    return _label(country.flag, country.name)


@functools.lru_cache(maxsize=2048)
def _country_label(code: str, language: str | None) -> SafeString:
    """Memoised by code and language: the name goes through gettext and the flag through urljoin, a tenth of the
    time of a page of 50 events or players. Neither depends on anything else that changes while the site runs."""
    country = Country(code)
    return _label(country.flag, country.name)


def _label(flag: str, name: str) -> SafeString:
    return format_html(
        '<span class="country"><img class="flag" src="{}" alt="" width="16" height="11"> {}</span>', flag, name
    )


ONE_PASS_TEMPLATE = "events/table.html"  # TABLE_TEMPLATE, its rows from OnePassTable.body_rows

# A column's cells: its value from the record (None or "" shows the column's default, as in django-tables2),
# then the cell's content from the record and that value (escaped unless safe, as a template would).
Cell = tuple[Callable[[object], object], Callable[[object, object], object]]


def always(_record) -> bool:
    """The value of a column shown whatever the record holds (empty_values=()): never empty."""
    return True


class CountKeptData(TableData):
    """Rows whose number is kept (lib.counting.CountKept), read a page at a time: not made a list of every row,
    as django-tables2 does with data that is not a queryset."""

    def __len__(self):
        return len(self.data)


class SortedOnceListData(TableListData):
    """A list of rows sorted as django-tables2 sorts them, each row's value read once per sort key.

    django-tables2 compares rows through their accessors on every comparison:
    the 900 rating changes of the largest event took 10 ms a sort. Here each
    key is one plain sort, least significant first (the sorts are stable);
    an empty value (None) comes first ascending and last descending, as there.
    """

    def order_by(self, aliases):
        order = []
        for alias in aliases:
            column = self.table.columns[OrderBy(alias).bare]
            # As django-tables2: the column's own order, or its opposite where the alias asks the other way.
            order += column.order_by.opposite if alias[0] != column.order_by_alias[0] else column.order_by
        rows = list(self.data)
        try:
            for each in reversed(order):
                accessor = Accessor(each.bare)
                rows.sort(key=lambda row: _sort_key(accessor.resolve(row, quiet=True)), reverse=each.is_descending)
        except TypeError:  # values that do not compare with each other: django-tables2's own ordering of them
            return super().order_by(aliases)
        self.data = rows
        self._ordering = aliases
        return None


def _sort_key(value) -> tuple:
    return (value is not None, value)


class OnePassTable(tables.Table):
    """A table whose rows on the page shown are built in one pass from `cells()`, as django-tables2 renders them."""

    def __init__(self, data, *args, **kwargs):
        if isinstance(data, CountKept):
            data = CountKeptData(data)
        elif not isinstance(data, TableData) and not hasattr(data, "order_by"):  # a list, not a queryset
            data = SortedOnceListData(list(data))
        super().__init__(data, *args, **kwargs)

    def cells(self) -> dict[str, Cell]:
        """Each column's cells: {column name: (its value from a record, the cell's content from both)}."""
        raise NotImplementedError

    @cached_property
    def body_rows(self) -> SafeString:
        cells = self.cells()
        # A cell's attrs depend on its column only (no callables): written once, not per row.
        columns = [
            (f"<td {column.attrs['td'].as_html()}>", column.default, *cells[column.name]) for column in self.columns
        ]
        rows = []
        for number, row in enumerate(self.paginated_rows):
            record = row.record
            html = "".join(
                [
                    f"{opening}{escaped(default if value is None or value == '' else render(record, value))}</td>"
                    for opening, default, value_of, render in columns
                    for value in (value_of(record),)
                ]
            )
            rows.append(f'<tr class="{"odd" if number % 2 else "even"}">{html}</tr>')
        if not rows and self.empty_text:
            rows.append(f'<tr><td colspan="{len(self.columns)}">{escaped(self.empty_text)}</td></tr>')
        return mark_safe("\n".join(rows))
