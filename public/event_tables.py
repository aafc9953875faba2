"""Tables of the event pages (django-tables2)."""

import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from events.models import EventStatus
from lib.tables import TABLE_TEMPLATE, cell, country_label
from players.formatting import change_cell, change_class, format_name, signed
from players.links import participant_link
from public.player_tables import correction_note
from ratings.formatting import rating_shown

VTES_FORMAT = "vtes"  # V:EKN events are scored in rating points: K means nothing there


class EventTable(tables.Table):
    date = tables.DateColumn("j M Y", verbose_name="Date", attrs=cell("Date", "col-date"))
    name = tables.Column(verbose_name="Event", attrs=cell("Event", "col-event"))
    format = tables.Column(verbose_name="Format", attrs=cell("Format"))
    k = tables.Column(verbose_name="K", attrs=cell("K-value", "num"))
    player_count = tables.Column(verbose_name="Players", attrs=cell("Players", "num"))
    # Through the Country object, not the model field: see PlayerTable.country (get_country_display is 1 ms a row).
    place = tables.Column(
        verbose_name="Place",
        accessor="country__code",
        order_by="country",
        empty_values=(),
        attrs=cell("Place", "col-place"),
    )

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table event-table cards-on-phone"}
        empty_text = "No events match."

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        self.anchor = "events"
        self.previous_label, self.next_label = "Newer", "Older"

    def render_name(self, record):
        tags = []
        if record.team_size > 1:
            tags.append(mark_safe(' <span class="tag">Teams</span>'))
        if record.level:
            tags.append(format_html(' <span class="tag tag-level">{}</span>', record.get_level_display()))
        if record.status != EventStatus.RATED:
            tags.append(format_html(' <span class="tag tag-muted">{}</span>', record.get_status_display()))
        return format_html(
            '<a href="{}">{}</a>{}',
            reverse("events:detail", args=[record.pk]),
            record.name,
            format_html_join("", "{}", ((tag,) for tag in tags)),
        )

    def render_format(self, value):
        return format_name(value)

    def render_k(self, record):
        return "—" if record.format == VTES_FORMAT else record.k

    def render_place(self, record):
        if not record.country:
            return record.city or "—"
        label = country_label(record.country)
        return format_html("{}, {}", record.city, label) if record.city else label


class StandingTable(tables.Table):
    """Final standings; V:EKN events add the rating points each player earned."""

    rank = tables.Column(verbose_name="Rank", attrs=cell("Rank", "num col-rank"))
    participant = tables.Column(verbose_name="Player", attrs=cell("Player", "col-name"))
    vp = tables.Column(verbose_name="VP", attrs=cell("Victory points", "num"))
    gw = tables.Column(verbose_name="GW", attrs=cell("Game wins", "num hide-phone"))
    final = tables.Column(verbose_name="Final", attrs=cell("Final"), empty_values=())
    points = tables.Column(verbose_name="Points", accessor="participant_id", attrs=cell("Rating points", "num"))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table standings-table compact-on-phone"}

    def __init__(self, data, *, scores: dict, rounding: str, **kwargs):
        super().__init__(data, exclude=() if scores else ("points",), **kwargs)
        self.scores, self.rounding = scores, rounding
        self.anchor = "standings"

    def render_participant(self, value):
        return participant_link(value)

    def render_vp(self, value):
        return f"{float(value):g}"

    def render_final(self, record):
        if not record.final:
            return "—"
        css = "tag tag-yes" if record.final == "winner" else "tag"
        return format_html('<span class="{}">{}</span>', css, record.get_final_display())

    def render_points(self, record):
        score = self.scores.get(record.participant_id)
        if score is None:
            return "—"
        if score.bonus:
            return format_html(
                '<strong title="{}">{}</strong>',
                f"includes a finals bonus of {score.bonus:.1f} (coefficient {score.coefficient:.3f})",
                rating_shown(score.points, self.rounding),
            )
        return format_html("<strong>{}</strong>", rating_shown(score.points, self.rounding))


class RatingChangeTable(tables.Table):
    """Each participant's rating over the event: before the first match, after the last."""

    participant = tables.Column(verbose_name="Player", attrs=cell("Player", "col-name"), order_by=("name",))
    record = tables.Column(verbose_name="W–D–L", accessor="wins", attrs=cell("W–D–L", "num"), orderable=False)
    rating_before = tables.Column(verbose_name="Before", attrs=cell("Before", "num hide-phone"))
    rating_after = tables.Column(verbose_name="After", attrs=cell("After", "num col-rating"))
    change = tables.Column(verbose_name="Change", attrs=cell("Change", "num col-change"))

    class Meta:
        template_name = TABLE_TEMPLATE
        attrs = {"class": "table change-table compact-on-phone"}

    def __init__(self, data, *, rounding: str, team: bool = False, **kwargs):
        super().__init__(data, **kwargs)
        self.rounding = rounding
        if team:
            self.columns["participant"].column.verbose_name = "Team"

    def render_participant(self, value):
        return participant_link(value)

    def render_record(self, record):
        return f"{record.wins}–{record.draws}–{record.losses}"

    def render_rating_before(self, value):
        return rating_shown(value, self.rounding)

    def render_rating_after(self, value):
        return format_html("<strong>{}</strong>", rating_shown(value, self.rounding))

    def render_change(self, value):
        return change_cell(value)


def _side(participant, change, winner: bool):
    change_html = (
        format_html(' <span class="{}">{}</span>', change_class(change), signed(change)) if change is not None else ""
    )
    return format_html(
        '<div class="side{}"><span class="side-name">{}</span>{}</div>',
        " is-winner" if winner else "",
        participant_link(participant),
        change_html,
    )


def match_item(match, *, change1, change2, corrections) -> str:
    """One match of an event page as an <li>: both sides (winner in bold) with their rating changes, the games."""
    games1, games2 = match.games1, match.games2
    winner = 0 if match.is_bye or games1 == games2 else 1 if games1 > games2 else 2
    if match.is_bye:
        score = mark_safe('<span class="tag">Bye</span>')
        right = mark_safe('<div class="side"><span class="muted">no opponent</span></div>')
    else:
        outcome = {1: "won", 2: "lost", 0: "drew"}[winner]
        games = f"{games1}–{games2}–{match.draws}" if match.draws else f"{games1}–{games2}"
        title = ' title="games won by each, then drawn games"' if match.draws else ""
        score = format_html(
            '<span class="visually-hidden">{}, games </span><span{}>{}</span>', outcome, mark_safe(title), games
        )
        right = _side(match.participant2, change2, winner == 2)
    if corrections:
        score = format_html(
            '{}<details class="correction"><summary>Corrected</summary><ul>{}</ul></details>',
            score,
            format_html_join("", "<li>{}</li>", ((correction_note(correction),) for correction in corrections)),
        )
    return format_html(
        '<li class="match{}">{}<div class="score">{}</div>{}</li>',
        " is-bye" if match.is_bye else "",
        _side(match.participant1, change1, winner == 1),
        score,
        right,
    )
