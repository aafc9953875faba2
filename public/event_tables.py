"""Tables of the event pages (django-tables2), their rows built in one pass (lib.tables.OnePassTable)."""

import functools
from html import escape
from operator import attrgetter

import django_tables2 as tables
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext_lazy, pgettext, pgettext_lazy
from django.utils.translation import gettext as _

from events.models import EventStatus
from lib.tables import ONE_PASS_TEMPLATE, Cell, OnePassTable, always, cell, country_label
from players.formatting import change_cell, change_class, day, decimal, format_name, percent, plain_number, signed
from players.links import ParticipantLinks, url_maker
from public.player_tables import CHANGE, DATE, EVENT, FINAL, GAME_WINS, PLAYERS, POINTS, VICTORY_POINTS, correction_note
from ratings.formatting import rating_shown

VTES_FORMAT = "vtes"  # V:EKN events are scored in rating points: K means nothing there

PLAYER = gettext_lazy("Player")
PLACE = pgettext_lazy("where an event was held", "Place")
STANDING_PLACE = pgettext_lazy("a place in the standings", "Place")
RECORD = pgettext_lazy("wins–draws–losses, abbreviated", "W–D–L")
WINNER = gettext_lazy("Winner")


class EventTable(OnePassTable):
    date = tables.DateColumn("DATE_FORMAT", verbose_name=DATE, attrs=cell(DATE, "col-date"))
    name = tables.Column(verbose_name=EVENT, attrs=cell(EVENT, "col-event"))
    format = tables.Column(verbose_name=gettext_lazy("Format"), attrs=cell(gettext_lazy("Format")))
    k = tables.Column(verbose_name="K", attrs=cell(gettext_lazy("K-value"), "num"))
    player_count = tables.Column(verbose_name=PLAYERS, attrs=cell(PLAYERS, "num"))
    winner = tables.Column(verbose_name=WINNER, accessor="pk", attrs=cell(WINNER, "col-winner"), empty_values=())
    # Through the Country object, not the model field: see PlayerTable.country (get_country_display is 1 ms a row).
    place = tables.Column(
        verbose_name=PLACE,
        accessor="country__code",
        order_by="country",
        empty_values=(),
        attrs=cell(PLACE, "col-place"),
    )

    class Meta:
        template_name = ONE_PASS_TEMPLATE
        orderable = False
        attrs = {"class": "table event-table cards-on-phone"}
        empty_text = gettext_lazy("No events match.")

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        self.anchor = "events"
        self.previous_label, self.next_label = _("Newer"), _("Older")
        self.winners: dict[int, list] = {}  # event id -> its winners named, set for the page shown

    def cells(self) -> dict[str, Cell]:
        links = ParticipantLinks()
        event_url = url_maker("events:detail")
        teams_word = escape(_("Teams"))
        teams = f' <span class="tag">{teams_word}</span>'

        def name(event, _value):
            tags = teams if event.team_size > 1 else ""
            if event.level:
                tags += f' <span class="tag tag-level">{escape(event.get_level_display())}</span>'
            if event.status != EventStatus.RATED:
                tags += f' <span class="tag tag-muted">{escape(event.get_status_display())}</span>'
            return SafeString(f'<a href="{escape(event_url(event.pk))}">{escape(event.name)}</a>{tags}')

        def place(event, _value):
            if not event.country:
                return event.city or "—"
            label = country_label(event.country)
            return format_html("{}, {}", event.city, label) if event.city else label

        return {
            "date": (attrgetter("date"), lambda _, value: day(value)),
            "name": (attrgetter("name"), name),
            "format": (attrgetter("format"), lambda _, code: format_name(code)),
            "k": (attrgetter("k"), lambda event, _: "—" if event.format == VTES_FORMAT else event.k),
            "player_count": (attrgetter("player_count"), lambda _, count: count),
            "winner": (always, lambda event, _: winners_shown(self.winners.get(event.pk), links)),
            "place": (always, place),
        }


class StandingTable(OnePassTable):
    """Final standings; V:EKN events add the rating points each player earned."""

    rank = tables.Column(verbose_name=gettext_lazy("Rank"), attrs=cell(gettext_lazy("Rank"), "num col-rank"))
    participant = tables.Column(verbose_name=PLAYER, attrs=cell(PLAYER, "col-name"))
    vp = tables.Column(verbose_name="VP", attrs=cell(VICTORY_POINTS, "num"))
    gw = tables.Column(verbose_name="GW", attrs=cell(GAME_WINS, "num hide-phone"))
    final = tables.Column(verbose_name=FINAL, attrs=cell(FINAL), empty_values=())
    points = tables.Column(
        verbose_name=POINTS, accessor="participant_id", attrs=cell(gettext_lazy("Rating points"), "num")
    )

    class Meta:
        template_name = ONE_PASS_TEMPLATE
        orderable = False
        attrs = {"class": "table standings-table compact-on-phone"}

    def __init__(self, data, *, scores: dict, rounding: str, **kwargs):
        super().__init__(data, exclude=() if scores else ("points",), **kwargs)
        self.scores, self.rounding = scores, rounding
        self.anchor = "standings"

    def cells(self) -> dict[str, Cell]:
        links = ParticipantLinks()
        scores, rounding = self.scores, self.rounding

        def final(standing, _value):
            if not standing.final:
                return "—"
            css = "tag tag-yes" if standing.final == "winner" else "tag"
            return format_html('<span class="{}">{}</span>', css, standing.get_final_display())

        def points(standing, _value):
            score = scores.get(standing.participant_id)
            if score is None:
                return "—"
            if score.bonus:
                return format_html(
                    '<strong title="{}">{}</strong>',
                    _("includes a finals bonus of %(bonus)s (coefficient %(coefficient)s)")
                    % {"bonus": decimal(score.bonus, 1), "coefficient": decimal(score.coefficient, 3)},
                    rating_shown(score.points, rounding),
                )
            return format_html("<strong>{}</strong>", rating_shown(score.points, rounding))

        return {
            "rank": (attrgetter("rank"), lambda _, rank: rank),
            "participant": (attrgetter("participant"), lambda _, participant: links(participant)),
            "vp": (attrgetter("vp"), lambda _, vp: plain_number(vp)),
            "gw": (attrgetter("gw"), lambda _, gw: gw),
            "final": (always, final),
            "points": (attrgetter("participant_id"), points),
        }


def winners_shown(winners, links: ParticipantLinks) -> SafeString | str:
    """An event's winner (or those sharing first place) as links; "—" before it has results."""
    if not winners:
        return "—"
    return mark_safe(", ".join(links(winner) for winner in winners))


def percent_shown(value) -> str:
    """A tiebreaker percentage as the DCI printed them: 66.67% (66,67 % in German)."""
    return percent(value, 2)


class ComputedStandingTable(OnePassTable):
    """Final standings computed from the matches (SPEC 5b): match points, then the DCI tiebreakers."""

    place = tables.Column(verbose_name=STANDING_PLACE, attrs=cell(STANDING_PLACE, "num col-rank"))
    participant = tables.Column(verbose_name=PLAYER, attrs=cell(PLAYER, "col-name"))
    match_points = tables.Column(verbose_name=POINTS, attrs=cell(gettext_lazy("Match points"), "num"))
    record = tables.Column(verbose_name=RECORD, accessor="wins", attrs=cell(RECORD, "num"))
    omw = tables.Column(
        verbose_name="OMW%", attrs=cell(gettext_lazy("Opponents' match-win %"), "num hide-phone", "OMW%")
    )
    gw = tables.Column(verbose_name="GW%", attrs=cell(gettext_lazy("Game-win %"), "num hide-phone", "GW%"))
    ogw = tables.Column(
        verbose_name="OGW%", attrs=cell(gettext_lazy("Opponents' game-win %"), "num hide-phone", "OGW%")
    )

    class Meta:
        template_name = ONE_PASS_TEMPLATE
        orderable = False
        attrs = {"class": "table standings-table compact-on-phone"}

    def __init__(self, data, *, names: dict, team: bool = False, **kwargs):
        super().__init__(data, **kwargs)
        self.names = names
        self.anchor = "standings"
        if team:
            self.columns["participant"].column.verbose_name = _("Team")

    def cells(self) -> dict[str, Cell]:
        links = ParticipantLinks()
        names = self.names

        winner = f' <span class="tag tag-yes">{escape(str(WINNER))}</span>'

        def place(placing, value):
            if placing.won_elimination:
                return SafeString(f"{value}{winner}")
            return value

        def tiebreaker(_, value):
            return "—" if value is None else percent_shown(value)

        return {
            "place": (attrgetter("place"), place),
            "participant": (attrgetter("participant"), lambda _, participant: links(names.get(participant))),
            "match_points": (attrgetter("match_points"), lambda _, points: points),
            "record": (attrgetter("wins"), lambda row, _: f"{row.wins}–{row.draws}–{row.losses}"),
            "omw": (attrgetter("omw"), tiebreaker),
            "gw": (attrgetter("gw"), lambda _, value: percent_shown(value)),
            "ogw": (attrgetter("ogw"), tiebreaker),
        }


class RatingChangeTable(OnePassTable):
    """Each participant's rating over the event: before the first match, after the last."""

    participant = tables.Column(verbose_name=PLAYER, attrs=cell(PLAYER, "col-name"), order_by=("name",))
    record = tables.Column(verbose_name=RECORD, accessor="wins", attrs=cell(RECORD, "num"), orderable=False)
    rating_before = tables.Column(
        verbose_name=gettext_lazy("Before"), attrs=cell(gettext_lazy("Before"), "num hide-phone")
    )
    rating_after = tables.Column(
        verbose_name=gettext_lazy("After"), attrs=cell(gettext_lazy("After"), "num col-rating")
    )
    change = tables.Column(verbose_name=CHANGE, attrs=cell(CHANGE, "num col-change"))

    class Meta:
        template_name = ONE_PASS_TEMPLATE
        attrs = {"class": "table change-table compact-on-phone"}

    def __init__(self, data, *, rounding: str, team: bool = False, **kwargs):
        super().__init__(data, **kwargs)
        self.rounding = rounding
        if team:
            self.columns["participant"].column.verbose_name = _("Team")

    def cells(self) -> dict[str, Cell]:
        links = ParticipantLinks()
        rounding = self.rounding
        return {
            "participant": (attrgetter("participant"), lambda _, participant: links(participant)),
            "record": (attrgetter("wins"), lambda row, _: f"{row.wins}–{row.draws}–{row.losses}"),
            "rating_before": (attrgetter("rating_before"), lambda _, rating: rating_shown(rating, rounding)),
            "rating_after": (
                attrgetter("rating_after"),
                lambda _, rating: SafeString(f"<strong>{escape(rating_shown(rating, rounding))}</strong>"),
            ),
            "change": (attrgetter("change"), lambda _, change: change_cell(change)),
        }


def _side(participant, change, winner: bool, links: ParticipantLinks) -> str:
    change_html = f' <span class="{change_class(change)}">{escape(signed(change))}</span>' if change is not None else ""
    return (
        f'<div class="side{" is-winner" if winner else ""}"><span class="side-name">{links(participant)}</span>'
        f"{change_html}</div>"
    )


# Read out before the games (visually hidden): "won, games 2–1", from the first side.
_OUTCOMES = {
    1: pgettext_lazy("a match, from its first side", "won, games"),
    2: pgettext_lazy("a match, from its first side", "lost, games"),
    0: pgettext_lazy("a match, from its first side", "drew, games"),
}


@functools.lru_cache(maxsize=32)
def _outcomes_in(language: str | None) -> dict[int, str]:
    """_OUTCOMES translated and escaped once per language: escaping a lazy text translates it again for each
    character it replaces (five times a match, on the largest event's page 2,000 times a request)."""
    return {winner: escape(str(words)) for winner, words in _OUTCOMES.items()}


def match_item(
    match, *, side1, side2, change1, change2, corrections, links: ParticipantLinks | None = None
) -> SafeString:
    """One match of an event page as an <li>: both sides (winner in bold) with their rating changes, the games.

    `side1` and `side2` are the match's participants (or NamedParticipants; None for a bye's missing side).

    Written as plain strings (a big round has hundreds): pass one `links` for all the matches of a page.
    """
    links = links or ParticipantLinks()
    games1, games2 = match.games1, match.games2
    bye = match.is_bye
    winner = 0 if bye or games1 == games2 else 1 if games1 > games2 else 2
    if bye:
        bye_word = escape(pgettext("a match without an opponent", "Bye"))
        no_opponent = escape(_("no opponent"))
        score = f'<span class="tag">{bye_word}</span>'
        right = f'<div class="side"><span class="muted">{no_opponent}</span></div>'
    else:
        games = f"{games1}–{games2}–{match.draws}" if match.draws else f"{games1}–{games2}"
        title = ""
        if match.draws:
            explained = escape(_("games won by each, then drawn games"))
            title = f' title="{explained}"'
        outcome = _outcomes_in(get_language())[winner]
        score = f'<span class="visually-hidden">{outcome} </span><span{title}>{escape(games)}</span>'
        right = _side(side2, change2, winner == 2, links)
    if corrections:
        notes = "".join(f"<li>{correction_note(correction)}</li>" for correction in corrections)
        corrected = escape(_("Corrected"))
        score = f'{score}<details class="correction"><summary>{corrected}</summary><ul>{notes}</ul></details>'
    return SafeString(
        f'<li class="match{" is-bye" if bye else ""}">{_side(side1, change1, winner == 1, links)}'
        f'<div class="score">{score}</div>{right}</li>'
    )
