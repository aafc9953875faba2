"""The ranking list as a django-tables2 table: one table for today's list and a past date's.

django-tables2 gives the columns, their headers, sorting and pagination. The
rows of the page shown are built here in one pass, each as one string of
<td> cells: rendering them cell by cell through django-tables2 (a signature
inspection, an attrs dict and a format_html for each cell) cost more than the
queries of the page. The render_* methods give the same HTML, one cell at a
time, for whoever asks a row for its cells.
"""

from functools import cache, cached_property
from html import escape

import django_tables2 as tables
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _
from django_tables2.data import TableData
from django_tables2.utils import OrderBy, segment

from players import geography
from players.formatting import day
from ratings.engine import displayed
from ratings.models import Category, Ruleset
from ratings.selectors.places import country_name, flag_url
from ratings.selectors.rankings import ListRows


@cache
def _region_name(code: str) -> str:
    return geography.region_name(code)


def _classes(name: str, *extra: str) -> dict:
    """th/td classes: the column's name (the stylesheet hides some on phones) and alignment."""
    classes = " ".join((f"col-{name}", *extra))
    return {"th": {"class": classes}, "td": {"class": classes}}


class ListData(TableData):
    """A list's rows (ratings.selectors.rankings.ListRows) for django-tables2: sorted and paginated in the database."""

    def __len__(self):
        return len(self.data)

    @property
    def ordering(self):
        """The columns the rows are sorted by (as TableQuerysetData reads them off a queryset)."""
        aliases = {column.order_by_alias: column.order_by for column in self.table.columns}
        return next(segment(self.data.ordering, aliases), None)

    def order_by(self, aliases):
        accessors = []
        for alias in aliases:  # as TableQuerysetData.order_by reads a column's order
            column = self.table.columns[OrderBy(alias).bare]
            accessors += column.order_by if alias[0] == column.order_by_alias[0] else column.order_by.opposite
        if accessors:
            self.data.order_by(*(accessor.for_queryset() for accessor in accessors))


class RankingTable(tables.Table):
    # Ranks follow ratings, so ordering "by rank" is ordering by rating: the order of the list's index.
    rank = tables.Column(
        verbose_name=_("Rank"), order_by=("-rating", "name", "display_id"), attrs=_classes("rank", "num")
    )
    movement = tables.Column(
        verbose_name=_("Change"), accessor="previous_rank", orderable=False, empty_values=(), attrs=_classes("movement")
    )
    name = tables.Column(verbose_name=_("Player"), order_by=("name", "display_id"), attrs=_classes("name"))
    country = tables.Column(verbose_name=_("Country"), orderable=False, default="", attrs=_classes("country"))
    region = tables.Column(verbose_name=_("Region"), orderable=False, default="", attrs=_classes("region"))
    rating = tables.Column(verbose_name=_("Rating"), order_by=("rating", "name"), attrs=_classes("rating", "num"))
    matches = tables.Column(verbose_name=_("Matches"), order_by=("matches", "name"), attrs=_classes("matches", "num"))
    provisional = tables.Column(verbose_name=_("Provisional"), orderable=False, attrs=_classes("provisional"))

    class Meta:
        attrs = {"class": "table ranking-table"}
        template_name = "ratings/_ranking_table.html"
        empty_text = _("Nobody in this list.")

    def __init__(
        self, data, *, category: Category, unranked: bool = False, previous_date=None, movement: bool = True, **kwargs
    ):
        exclude = []
        if unranked:
            exclude += ["rank", "movement"]  # the unranked have no rank to move
        elif not movement:
            exclude.append("movement")  # nothing to move from (the first official list)
        if category.team_size > 1:
            exclude += ["country", "region"]  # teams have no country of their own
        if not category.provisional_until:
            exclude.append("provisional")
        super().__init__(ListData(data) if isinstance(data, ListRows) else data, exclude=exclude, **kwargs)
        self.category = category
        self.previous_date = previous_date
        self.columns["name"].column.verbose_name = _("Team") if category.team_size > 1 else _("Player")
        if category.ruleset == Ruleset.VEKN:
            self.columns["rating"].column.verbose_name = _("Points")
            self.columns["matches"].column.verbose_name = _("Events")

    # The page's rows ------------------------------------------------------------------------------------------

    @cached_property
    def body_rows(self) -> list[SafeString]:
        """The rows of the page shown (every row when not paginated), each its <td> cells as one string."""
        cells = {
            "rank": self._rank_cell,
            "movement": self._movement_cell,
            "name": self._name_cell,
            "country": self._country_cell,
            "region": self._region_cell,
            "rating": self._rating_cell,
            "matches": self._matches_cell,
            "provisional": self._provisional_cell,
        }
        # A cell's attrs depend on its column only: written once, not per row.
        columns = [(f"<td {column.attrs['td'].as_html()}>", cells[column.name]) for column in self.columns]
        return [
            mark_safe("".join([f"{opening}{cell(row.record)}</td>" for opening, cell in columns]))
            for row in self.paginated_rows
        ]

    # Each cell as HTML, its text escaped. An empty value shows the column's default, as django-tables2 has it.

    def _rank_cell(self, record) -> str:
        return self.default if record.rank is None else str(record.rank)

    def _movement_cell(self, record) -> str:
        return self._movement(record.previous_rank, record.rank)

    @cached_property
    def _words(self) -> dict[str, str]:
        """The movement cells' words in the visitor's language, escaped, once per table (not per row); "%(size)s"
        left in for each row's number."""
        since = {"date": day(self.previous_date)} if self.previous_date else {}
        if since:
            titles = {
                "new": gettext("Not ranked here since %(date)s") % since,
                "same": gettext("Unchanged since %(date)s") % since,
                "up": gettext("Up %(size)s since %(date)s") % {**since, "size": "%(size)s"},
                "down": gettext("Down %(size)s since %(date)s") % {**since, "size": "%(size)s"},
            }
        else:
            titles = {
                "new": gettext("Not ranked here since last month"),
                "same": gettext("Unchanged since last month"),
                "up": gettext("Up %(size)s since last month"),
                "down": gettext("Down %(size)s since last month"),
            }
        words = {f"{key}-title": escape(title) for key, title in titles.items()}
        words["new"] = escape(pgettext("ranking movement", "new"))
        words["same"] = escape(pgettext("ranking movement", "unchanged"))
        words["up"] = escape(pgettext("ranking movement", "up %(size)s"))
        words["down"] = escape(pgettext("ranking movement", "down %(size)s"))
        return words

    def _movement(self, previous_rank: int | None, rank: int) -> str:
        words = self._words
        if previous_rank is None:
            return f'<span class="move move-new" title="{words["new-title"]}">{words["new"]}</span>'
        change = previous_rank - rank
        if change == 0:
            return (
                f'<span class="move move-same" title="{words["same-title"]}"><span aria-hidden="true">–</span>'
                f'<span class="visually-hidden">{words["same"]}</span></span>'
            )
        arrow, word = ("▲", "up") if change > 0 else ("▼", "down")
        size = {"size": abs(change)}
        return (
            f'<span class="move move-{word}" title="{words[f"{word}-title"] % size}"><span aria-hidden="true">'
            f'{arrow} {size["size"]}</span><span class="visually-hidden">{words[word] % size}</span></span>'
        )

    def _name_cell(self, record) -> str:
        return self._name(record.name, record) if record.name else self.default

    def _name(self, value: str, record) -> str:
        number = escape(record.display_id)
        if self.category.team_size > 1:
            link = f'<a href="/teams/{record.participant_id}/">{escape(value)}</a>'
            if value.replace(" / ", "+") == record.display_id:  # an unnamed team is named by its numbers already
                return link
            return f'{link} <span class="member-number">{escape(record.display_id.replace("+", " · "))}</span>'
        flag = ""
        if record.country:  # phones show the flag here instead of in the country column
            flag = (
                f'<img class="flag name-flag" src="{escape(flag_url(record.country))}" '
                f'alt="{escape(country_name(record.country))}" width="16" height="11"> '
            )
        shown = escape(value or record.display_id)
        return f'{flag}<a href="/players/{number}/">{shown}</a> <span class="member-number">{number}</span>'

    def _country_cell(self, record) -> str:
        return self._country(record.country) if record.country else ""

    def _country(self, code: str) -> str:
        name = escape(country_name(code))
        return (
            f'<span class="country" title="{name}"><img class="flag" src="{escape(flag_url(code))}" alt="" width="16" '
            f'height="11"> <span class="country-name">{name}</span></span>'
        )

    def _region_cell(self, record) -> str:
        return escape(_region_name(record.region)) if record.region else ""

    def _rating_cell(self, record) -> str:
        return self.default if record.rating is None else str(displayed(record.rating, self.category.display_rounding))

    def _matches_cell(self, record) -> str:
        return self.default if record.matches is None else str(record.matches)

    def _provisional_cell(self, record) -> str:
        if record.provisional is None:
            return self.default
        return self._provisional(record.provisional)

    def _provisional(self, value: bool) -> str:
        if not value:
            return ""
        return self._provisional_html

    @cached_property
    def _provisional_html(self) -> str:
        title = gettext("Provisional: fewer than %(count)s matches") % {"count": self.category.provisional_until}
        mark = pgettext("short for provisional", "P")  # outside the f-string, where makemessages finds them
        spoken = gettext("provisional")
        return (
            f'<span class="provisional" title="{escape(title)}"><span aria-hidden="true">'
            f'{escape(mark)}</span><span class="visually-hidden">{escape(spoken)}</span></span>'
        )

    # One cell at a time, for django-tables2 (BoundRow.get_cell): the same HTML -----------------------------------

    def render_movement(self, value, record):
        return mark_safe(self._movement(value, record.rank))

    def render_name(self, value, record):
        return mark_safe(self._name(value, record))

    def render_country(self, value):
        return mark_safe(self._country(value))

    def render_region(self, value):
        return _region_name(value)

    def render_rating(self, value):
        return displayed(value, self.category.display_rounding)

    def render_provisional(self, value):
        return mark_safe(self._provisional(value))
