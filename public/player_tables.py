"""Tables of the player pages (django-tables2). Sorting is off: the order is the history's, read from its index."""

from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from html import escape
from operator import attrgetter

import django_tables2 as tables
from django.db.models import Model
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy
from django_tables2.data import TableListData

from events.models import FinalPlacing, KValue
from lib.tables import ONE_PASS_TEMPLATE, TABLE_TEMPLATE, Cell, OnePassTable, always, cell, country_label
from players.formatting import (
    OUTCOME_LETTERS,
    OUTCOME_WORDS,
    change_cell,
    day,
    decimal,
    games_shown,
    k_reason_shown,
    outcome,
    plain_number,
)
from players.links import ParticipantLinks, url_maker
from ratings.formatting import rating_shown
from ratings.selectors.players import RatingHistory

HISTORY_TEMPLATE = "players/history_table.html"  # match rows grouped under their event
FINAL_PLACES = frozenset(FinalPlacing.values) - {""}


def oriented_games(match, participant_id: int) -> str:
    """The match's games from `participant_id`'s side: 2–1 means they won two."""
    if match is None:
        return ""
    if match.participant1_id == participant_id:
        return games_shown(match.games1, match.games2, match.draws)
    return games_shown(match.games2, match.games1, match.draws)


def result_cell(entry, corrections=()) -> SafeString:
    letter = outcome(entry.score)
    mark = ""
    if corrections:
        # Corrections (SPEC 5) are shown on the match wherever it appears.
        notes = "".join(f"<li>{correction_note(correction)}</li>" for correction in corrections)
        corrected = escape(_("Corrected"))
        mark = f'<details class="correction"><summary>{corrected}</summary><ul>{notes}</ul></details>'
    games = escape(oriented_games(entry.match, entry.participant_id))
    return mark_safe(
        f'<span class="result result-{letter.lower()}"><abbr title="{escape(OUTCOME_WORDS[letter])}">'
        f"{escape(OUTCOME_LETTERS[letter])}</abbr> {games}</span>{mark}"
    )


def correction_note(correction) -> SafeString:
    """A correction in words, linked to its entry in the correction log when it has one."""
    url = getattr(correction, "url", "")
    if url:
        return mark_safe(f'<a href="{escape(url)}">{escape(str(correction))}</a>')
    return mark_safe(escape(str(correction)))


def appeal_cell(mark) -> SafeString | str:
    """The player's own row: a link to appeal the match, or to the status of their open appeal."""
    if mark is None:
        return ""
    return mark_safe(f'<a class="appeal-link" href="{escape(mark.url)}">{escape(mark.label)}</a>')


def round_cell(entry) -> str:
    if entry.match is not None and entry.match.elimination:
        elim = escape(pgettext("elimination round, abbreviated", "elim."))
        return mark_safe(f'{entry.round} <span class="tag tag-elim">{elim}</span>')
    return str(entry.round)


# An event's K in words (SPEC 3.1), after the history's own reason ("event K 32"): what kind of event it is.
# The labels are lazy: each is read in the visitor's language ("32: qualifier (...)" -> "qualifier (...)").
K_MEANINGS = dict(KValue.choices)


def k_reason_in_words(reason: str) -> str:
    """The history's reason for a K, with what an event K means: "event K 32" -> "event K 32: qualifier (...)"."""
    prefix, _sep, value = reason.partition("event K ")
    if not prefix and value.isdigit() and int(value) in K_MEANINGS:
        meaning = str(K_MEANINGS[int(value)]).partition(": ")[2]
        return pgettext("a K and what it means", "%(k)s: %(meaning)s") % {
            "k": k_reason_shown(reason),
            "meaning": meaning,
        }
    return k_reason_shown(reason)


EXPECTED_HELP = gettext_lazy("Expected score (win probability) from both ratings before the match")
K_HELP = gettext_lazy("How far one match can move the rating: the event's K, or the player's rating band")


def explained(attrs: dict, help_text: str) -> dict:
    """A column's attrs with a tooltip on its header saying what it means."""
    return {**attrs, "th": {**attrs.get("th", {}), "title": help_text}}


def k_cell(entry) -> SafeString:
    value = pgettext("provisional, abbreviated", "prov.") if entry.k is None else plain_number(entry.k)
    reason = escape(k_reason_in_words(entry.k_reason or ""))
    return mark_safe(f'<span class="k-value">{value}</span> <span class="k-reason">{reason}</span>')


@dataclass
class EventGroup:
    """The rows of one event on the page shown: the event heads them."""

    key: tuple
    record: object  # the first row's record: its category, on pages listing several
    event: Model | None
    event_url: str
    rows: list[str] = field(default_factory=list)

    @property
    def rows_html(self) -> SafeString:
        return mark_safe("\n  ".join(self.rows))


class EventGroupedTable(tables.Table):
    """Match rows grouped under their event, one <tbody> each (players/history_table.html).

    django-tables2 gives the columns, their headers and the pages. The rows
    of the page shown are built in one pass by `body_groups`, from the cells
    the table's `cells()` describes (HTML, not escaped again): rendering cell
    by cell through django-tables2 (a signature inspection, an attrs dict and
    a format_html per cell) cost more than the page's queries.
    """

    show_category = False

    def cells(self) -> dict[str, Cell]:
        raise NotImplementedError

    @cached_property
    def body_groups(self) -> list[EventGroup]:
        cells = self.cells()
        # A cell's attrs depend on its column only: written once, not per row.
        columns = [(f"<td {column.attrs['td'].as_html()}>", *cells[column.name]) for column in self.columns]
        event_url = url_maker("events:detail")
        default = self.default
        groups: list[EventGroup] = []
        for row in self.paginated_rows:
            record = row.record
            key = (record.event_id, record.category_id)
            if not groups or groups[-1].key != key:
                event = record.event
                groups.append(EventGroup(key, record, event, event_url(event.pk) if event else ""))
            html = "".join(
                [
                    f"{opening}{default if value is None or value == '' else render(record, value)}</td>"
                    for opening, value_of, render in columns
                    for value in (value_of(record),)
                ]
            )
            groups[-1].rows.append(f'<tr class="{row.get_even_odd_css_class()}">\n    {html}\n  </tr>')
        return groups


# Column headers and labels several tables share.
ROUND = pgettext_lazy("a round of an event", "Round")
RESULT = gettext_lazy("Result")
EXPECTED = gettext_lazy("Expected")
EXPECTED_SCORE = gettext_lazy("Expected score")
K_WHY = gettext_lazy("K (why)")
CHANGE = gettext_lazy("Change")
OPPONENT_RATING_THEN = gettext_lazy("Opponent's rating then")
DATE = gettext_lazy("Date")
EVENT = gettext_lazy("Event")
PLAYERS = gettext_lazy("Players")
VICTORY_POINTS = gettext_lazy("Victory points")
GAME_WINS = gettext_lazy("Game wins")
FINAL = pgettext_lazy("the final of an event", "Final")
POINTS = gettext_lazy("Points")
COUNTRY = gettext_lazy("Country")


class RatingHistoryTable(EventGroupedTable):
    """One row per rated match, newest first, grouped under each event: everything that explains the change."""

    round = tables.Column(verbose_name=ROUND, attrs=cell(ROUND, "num col-round", ROUND))
    opponent = tables.Column(
        verbose_name=gettext_lazy("Opponent"), attrs=cell(gettext_lazy("Opponent"), "col-opponent")
    )
    opponent_rating = tables.Column(
        verbose_name=gettext_lazy("Opp. rating"),
        attrs=cell(OPPONENT_RATING_THEN, "num col-opp-rating", gettext_lazy("Opp.")),
    )
    result = tables.Column(verbose_name=RESULT, accessor="score", attrs=cell(RESULT, "col-result"))
    expected = tables.Column(
        verbose_name=EXPECTED,
        attrs=explained(cell(EXPECTED_SCORE, "num col-expected", gettext_lazy("Exp.")), EXPECTED_HELP),
    )
    k = tables.Column(verbose_name=K_WHY, attrs=explained(cell("K", "col-k", "K"), K_HELP))
    change = tables.Column(verbose_name=CHANGE, accessor="rating_after", attrs=cell(CHANGE, "num col-change"))
    rating_after = tables.Column(
        verbose_name=gettext_lazy("Rating"), attrs=cell(gettext_lazy("Rating after"), "num col-rating", "→")
    )
    # Only on the viewer's own history (excluded otherwise): appeal a misreported match (SPEC 5).
    appeal = tables.Column(
        verbose_name=gettext_lazy("Appeal"), accessor="match_id", attrs=cell(gettext_lazy("Appeal"), "col-appeal")
    )

    class Meta:
        template_name = HISTORY_TEMPLATE
        orderable = False
        attrs = {"class": "table history-table match-history cards-on-phone"}
        empty_text = gettext_lazy("No rated matches.")

    def __init__(self, data, *, rounding: str, **kwargs):
        if isinstance(data, RatingHistory):  # read a page at a time: django-tables2 would copy it into a list
            data = TableListData(data)
        super().__init__(data, **kwargs)
        self.rounding = rounding
        self.corrections: dict[int, list] = {}  # match id -> corrections, set for the page shown
        self.appeals: dict[int, object] = {}  # match id -> appeal link or status, on the viewer's own history
        self.anchor = "history"
        self.previous_label, self.next_label = _("Newer"), _("Older")
        self.show_category = False

    def cells(self) -> dict[str, Cell]:
        links = ParticipantLinks()
        rounding, corrections, appeals = self.rounding, self.corrections, self.appeals
        return {
            "round": (attrgetter("round"), lambda entry, _: round_cell(entry)),
            "opponent": (attrgetter("opponent"), lambda _, opponent: links(opponent)),
            "opponent_rating": (attrgetter("opponent_rating"), lambda _, rating: rating_shown(rating, rounding)),
            "result": (
                attrgetter("score"),
                lambda entry, _: result_cell(entry, corrections.get(entry.match_id, ())),
            ),
            "expected": (attrgetter("expected"), lambda _row, expected: decimal(expected, 2)),
            "k": (attrgetter("k"), lambda entry, _: k_cell(entry)),
            "change": (attrgetter("rating_after"), lambda entry, _: change_cell(entry.change)),
            "rating_after": (
                attrgetter("rating_after"),
                lambda _, rating: f"<strong>{rating_shown(rating, rounding)}</strong>",
            ),
            "appeal": (attrgetter("match_id"), lambda _, match_id: appeal_cell(appeals.get(match_id))),
        }


class HeadToHeadTable(EventGroupedTable):
    """The matches between two players, from the first player's side, newest first, grouped by event."""

    round = tables.Column(accessor="entry__round", verbose_name=ROUND, attrs=cell(ROUND, "num col-round"))
    result = tables.Column(accessor="entry__score", verbose_name=RESULT, attrs=cell(RESULT, "col-result"))
    rating = tables.Column(
        accessor="entry__rating_before",
        verbose_name=gettext_lazy("Rating then"),
        attrs=cell(gettext_lazy("Rating then"), "num"),
    )
    opponent_rating = tables.Column(
        accessor="entry__opponent_rating",
        verbose_name=gettext_lazy("Opp. rating then"),
        attrs=cell(OPPONENT_RATING_THEN, "num"),
    )
    expected = tables.Column(accessor="entry__expected", verbose_name=EXPECTED, attrs=cell(EXPECTED_SCORE, "num"))
    k = tables.Column(accessor="entry__k_reason", verbose_name=K_WHY, attrs=cell("K", "col-k"))
    change = tables.Column(accessor="entry__rating_after", verbose_name=CHANGE, attrs=cell(CHANGE, "num"))
    opponent_change = tables.Column(
        verbose_name=gettext_lazy("Opp. change"), attrs=cell(gettext_lazy("Opponent's change"), "num")
    )

    class Meta:
        template_name = HISTORY_TEMPLATE
        orderable = False
        attrs = {"class": "table history-table cards-on-phone"}
        empty_text = gettext_lazy("These two have not met in a rated match.")

    def __init__(self, data, *, show_category: bool, **kwargs):
        super().__init__(data, **kwargs)
        self.corrections: dict[int, list] = {}
        self.anchor = "meetings"
        self.previous_label, self.next_label = _("Newer"), _("Older")
        self.show_category = show_category

    def cells(self) -> dict[str, Cell]:
        corrections = self.corrections

        def shown(rating: float, meeting) -> str:
            return rating_shown(rating, meeting.entry.category.display_rounding)

        return {
            "round": (attrgetter("entry.round"), lambda meeting, _: round_cell(meeting.entry)),
            "result": (
                attrgetter("entry.score"),
                lambda meeting, _: result_cell(meeting.entry, corrections.get(meeting.entry.match_id, ())),
            ),
            "rating": (attrgetter("entry.rating_before"), lambda meeting, rating: shown(rating, meeting)),
            "opponent_rating": (attrgetter("entry.opponent_rating"), lambda meeting, rating: shown(rating, meeting)),
            "expected": (attrgetter("entry.expected"), lambda _meeting, expected: decimal(expected, 2)),
            "k": (attrgetter("entry.k_reason"), lambda meeting, _: k_cell(meeting.entry)),
            "change": (attrgetter("entry.rating_after"), lambda meeting, _: change_cell(meeting.entry.change)),
            "opponent_change": (attrgetter("opponent_change"), lambda _, change: change_cell(change)),
        }


class VeknScoreTable(tables.Table):
    """A participant's V:EKN rating points per event, newest first, and whether each counts today."""

    date = tables.DateColumn("DATE_FORMAT", verbose_name=DATE, attrs=cell(DATE, "col-date"))
    event = tables.Column(accessor="event_name", verbose_name=EVENT, attrs=cell(EVENT, "col-event"))
    players = tables.Column(verbose_name=PLAYERS, attrs=cell(PLAYERS, "num"))
    vp = tables.Column(verbose_name="VP", attrs=cell(VICTORY_POINTS, "num"))
    gw = tables.Column(verbose_name="GW", attrs=cell(GAME_WINS, "num"))
    final = tables.Column(verbose_name=FINAL, attrs=cell(FINAL), empty_values=())
    bonus = tables.Column(verbose_name=gettext_lazy("Bonus"), attrs=cell(gettext_lazy("Finals bonus"), "num"))
    points = tables.Column(verbose_name=POINTS, attrs=cell(POINTS, "num col-rating"))
    status = tables.Column(
        verbose_name=gettext_lazy("Counts?"), accessor="counts", attrs=cell(gettext_lazy("Counts?"), "col-status")
    )

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table history-table cards-on-phone"}
        empty_text = gettext_lazy("No V:EKN events.")

    def __init__(self, data, *, rounding: str, best_of: int, **kwargs):
        super().__init__(data, **kwargs)
        self.rounding, self.best_of = rounding, best_of
        self.anchor = "events"
        self.previous_label, self.next_label = _("Newer"), _("Older")

    def render_event(self, record):
        return format_html('<a href="{}">{}</a>', reverse("events:detail", args=[record.event_id]), record.event_name)

    def render_vp(self, value):
        return plain_number(value)

    def render_final(self, value):
        return FinalPlacing(value).label if value in FINAL_PLACES else "—"

    def render_bonus(self, record):
        if not record.bonus:
            return "—"
        return format_html(
            '<span title="{}">{}</span>',
            _("coefficient %(coefficient)s") % {"coefficient": decimal(record.coefficient, 3)},
            decimal(record.bonus, 1),
        )

    def render_points(self, value):
        return format_html("<strong>{}</strong>", rating_shown(value, self.rounding))

    def render_status(self, record):
        last_day = day(record.leaves_window - timedelta(days=1))
        until = _("until %(day)s") % {"day": last_day}
        if record.counts:
            return format_html('<span class="tag tag-yes">{}</span> <small>{}</small>', _("Counts"), until)
        if record.in_window:
            return format_html(
                '<span class="tag">{}</span> <small>{}</small>',
                _("Not in best %(count)s") % {"count": self.best_of},
                until,
            )
        return format_html(
            '<span class="tag tag-muted">{}</span> <small>{}</small>',
            _("Expired"),
            _("since %(day)s") % {"day": day(record.leaves_window)},
        )


class PlayerTable(OnePassTable):
    """Search results: who, where, and their ratings today."""

    name = tables.Column(verbose_name=gettext_lazy("Name"), attrs=cell(gettext_lazy("Name"), "col-name"))
    membership_number = tables.Column(
        verbose_name=gettext_lazy("Number"), attrs=cell(gettext_lazy("Number"), "col-number")
    )
    country = tables.Column(verbose_name=COUNTRY, attrs=cell(COUNTRY), empty_values=())
    ratings = tables.Column(
        verbose_name=gettext_lazy("Ratings"), accessor="pk", attrs=cell(gettext_lazy("Ratings"), "col-ratings")
    )

    class Meta:
        template_name = ONE_PASS_TEMPLATE
        orderable = False
        attrs = {"class": "table player-table cards-on-phone"}
        empty_text = gettext_lazy("No player matches.")

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        self.ratings: dict[int, list] = {}  # participant id -> today's list rows, set for the page shown
        self.anchor = "results"

    def cells(self) -> dict[str, Cell]:
        links = ParticipantLinks()
        return {
            "name": (attrgetter("name"), lambda player, name: _link(links.player_url(player.membership_number), name)),
            "membership_number": (attrgetter("membership_number"), lambda _, number: number),
            # Through the Country object: get_country_display() rebuilds django-countries' whole list (1 ms a row).
            "country": (always, lambda player, _: country_label(player.country)),
            "ratings": (always, lambda player, _: self._ratings(player)),
        }

    def _ratings(self, player) -> SafeString:
        rows = self.ratings.get(player.participant_id, [])
        if not rows:
            not_rated = escape(_("Not rated yet"))
            return mark_safe(f'<span class="muted">{not_rated}</span>')
        chips = "".join(
            f'<li><span class="chip-name">{escape(row.category.label)}</span> '
            f"<strong>{escape(rating_shown(row.rating, row.category.display_rounding))}</strong>"
            + (f' <span class="chip-rank">#{row.world_rank}</span>' if row.world_rank else "")
            + "</li>"
            for row in rows
        )
        return mark_safe(f'<ul class="rating-chips">{chips}</ul>')


def _link(url: str, text: str) -> SafeString:
    return mark_safe(f'<a href="{escape(url)}">{escape(text)}</a>')
