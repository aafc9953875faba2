"""The ranking list as a django-tables2 table: one table for today's queryset and a past date's rows."""

from functools import cache
from operator import attrgetter

import django_tables2 as tables
from django.utils.html import format_html
from django_countries.fields import Country
from django_tables2.data import TableListData
from django_tables2.utils import OrderBy

from players import geography
from ratings.engine import displayed
from ratings.models import Category, Ruleset
from ratings.ranking_pages import country_name


@cache
def _region_name(code: str) -> str:
    return geography.region_name(code)


@cache
def _flag(code: str) -> str:
    return Country(code).flag


def _classes(name: str, *extra: str) -> dict:
    """th/td classes: the column's name (the stylesheet hides some on phones) and alignment."""
    classes = " ".join((f"col-{name}", *extra))
    return {"th": {"class": classes}, "td": {"class": classes}}


class RowList(TableListData):
    """A past date's rows, sorted with plain keys: the default comparator is slow on lists of 100,000."""

    def order_by(self, aliases):
        accessors = []
        for alias in aliases:  # as TableListData.order_by reads a column's order
            column = self.table.columns[OrderBy(alias).bare]
            same = alias[0] == column.order_by_alias[0]
            accessors += column.order_by if same else column.order_by.opposite
        for accessor in reversed(accessors):  # stable sorts, least significant key first
            self.data.sort(key=attrgetter(accessor.bare), reverse=accessor.is_descending)


class RankingTable(tables.Table):
    # Ranks follow ratings, so ordering "by rank" is ordering by rating: the order of the list's index.
    rank = tables.Column(verbose_name="Rank", order_by=("-rating", "name", "display_id"), attrs=_classes("rank", "num"))
    movement = tables.Column(
        verbose_name="Change", accessor="previous_rank", orderable=False, empty_values=(), attrs=_classes("movement")
    )
    name = tables.Column(verbose_name="Player", order_by=("name", "display_id"), attrs=_classes("name"))
    country = tables.Column(verbose_name="Country", orderable=False, default="", attrs=_classes("country"))
    region = tables.Column(verbose_name="Region", orderable=False, default="", attrs=_classes("region"))
    rating = tables.Column(verbose_name="Rating", order_by=("rating", "name"), attrs=_classes("rating", "num"))
    matches = tables.Column(verbose_name="Matches", order_by=("matches", "name"), attrs=_classes("matches", "num"))
    provisional = tables.Column(verbose_name="Provisional", orderable=False, attrs=_classes("provisional"))

    class Meta:
        attrs = {"class": "table ranking-table"}
        template_name = "ratings/_ranking_table.html"
        empty_text = "Nobody in this list."

    def __init__(self, data, *, category: Category, unranked: bool = False, previous_date=None, **kwargs):
        exclude = []
        if unranked:
            exclude += ["rank", "movement"]  # the unranked have no rank to move
        if category.team_size > 1:
            exclude += ["country", "region"]  # teams have no country of their own
        if not category.provisional_until:
            exclude.append("provisional")
        super().__init__(RowList(data) if isinstance(data, list) else data, exclude=exclude, **kwargs)
        self.category = category
        self.previous_date = previous_date
        self.columns["name"].column.verbose_name = "Team" if category.team_size > 1 else "Player"
        if category.ruleset == Ruleset.VEKN:
            self.columns["rating"].column.verbose_name = "Points"
            self.columns["matches"].column.verbose_name = "Events"

    def render_movement(self, value, record):
        since = f" since {self.previous_date.isoformat()}" if self.previous_date else " since last month"
        if value is None:
            return format_html('<span class="move move-new" title="Not ranked here{}">new</span>', since)
        change = value - record.rank
        if change == 0:
            return format_html(
                '<span class="move move-same" title="Unchanged{}"><span aria-hidden="true">–</span>'
                '<span class="visually-hidden">unchanged</span></span>',
                since,
            )
        arrow, word = ("▲", "up") if change > 0 else ("▼", "down")
        return format_html(
            '<span class="move move-{}" title="{} {}{}"><span aria-hidden="true">{} {}</span>'
            '<span class="visually-hidden">{} {}</span></span>',
            word, word.title(), abs(change), since, arrow, abs(change), word, abs(change),
        )  # fmt: skip

    def render_name(self, value, record):
        if self.category.team_size > 1:
            url = f"/teams/{record.participant_id}/"
            if value.replace(" / ", "+") == record.display_id:  # an unnamed team is named by its numbers already
                return format_html('<a href="{}">{}</a>', url, value)
            return format_html(
                '<a href="{}">{}</a> <span class="member-number">{}</span>',
                url, value, record.display_id.replace("+", " · "),
            )  # fmt: skip
        flag = ""
        if record.country:  # phones show the flag here instead of in the country column
            flag = format_html(
                '<img class="flag name-flag" src="{}" alt="{}" width="16" height="11"> ',
                _flag(record.country), country_name(record.country),
            )  # fmt: skip
        return format_html(
            '{}<a href="/players/{}/">{}</a> <span class="member-number">{}</span>',
            flag, record.display_id, value or record.display_id, record.display_id,
        )  # fmt: skip

    def render_country(self, value):
        return format_html(
            '<span class="country" title="{name}"><img class="flag" src="{flag}" alt="" width="16" height="11">'
            ' <span class="country-name">{name}</span></span>',
            flag=_flag(value),
            name=country_name(value),
        )

    def render_region(self, value):
        return _region_name(value)

    def render_rating(self, value):
        return displayed(value, self.category.display_rounding)

    def render_provisional(self, value):
        if not value:
            return ""
        return format_html(
            '<span class="provisional" title="Provisional: fewer than {} matches">'
            '<span aria-hidden="true">P</span><span class="visually-hidden">provisional</span></span>',
            self.category.provisional_until,
        )
