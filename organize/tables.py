"""Tables of the organizers' pages (django-tables2)."""

from operator import attrgetter

import django_tables2 as tables
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from events.models import EventStatus
from lib.tables import ONE_PASS_TEMPLATE, TABLE_TEMPLATE, Cell, OnePassTable, always, cell
from players.formatting import change_cell, day, decimal, format_name
from players.links import NamedParticipant, url_maker
from ratings.formatting import rating_shown

STATUS_TAGS = {EventStatus.DRAFT: "tag tag-muted", EventStatus.SUBMITTED: "tag", EventStatus.RATED: "tag tag-yes"}


def status_tag(status: str, label: str):
    return format_html('<span class="{}">{}</span>', STATUS_TAGS.get(status, "tag"), label)


class OrganizeEventTable(OnePassTable):
    date = tables.DateColumn(
        "DATE_FORMAT", verbose_name=gettext_lazy("Date"), attrs=cell(gettext_lazy("Date"), "col-date")
    )
    name = tables.Column(verbose_name=gettext_lazy("Event"), attrs=cell(gettext_lazy("Event"), "col-event"))
    format = tables.Column(verbose_name=gettext_lazy("Format"), attrs=cell(gettext_lazy("Format")))
    player_count = tables.Column(verbose_name=gettext_lazy("Players"), attrs=cell(gettext_lazy("Players"), "num"))
    results = tables.Column(
        verbose_name=gettext_lazy("Results"),
        accessor="pk",
        orderable=False,
        attrs=cell(gettext_lazy("Results")),
    )
    status = tables.Column(verbose_name=gettext_lazy("Status"), attrs=cell(gettext_lazy("Status")))
    organizer = tables.Column(verbose_name=gettext_lazy("Organizer"), attrs=cell(gettext_lazy("Organizer")))

    class Meta:
        # Cell by cell through django-tables2, a page of 50 events took 125 ms to draw (lib.tables).
        template_name = ONE_PASS_TEMPLATE
        orderable = False
        attrs = {"class": "table event-table"}
        empty_text = gettext_lazy("No events yet: create one below.")

    def __init__(self, data, *, show_organizer: bool, **kwargs):
        super().__init__(data, exclude=() if show_organizer else ("organizer",), **kwargs)
        self.anchor = "events"
        self.results_counts: dict[int, tuple[int, int]] = {}  # event id -> (matches, standings), for the page shown

    def cells(self) -> dict[str, Cell]:
        event_url = url_maker("organize:event")
        none_yet = _("none yet")

        def name(event, _value):
            return format_html('<a href="{}">{}</a>', event_url(event.pk), event.name)

        def format_shown(event, code):
            label = format_name(code)
            return _("%(format)s (teams)") % {"format": label} if event.team_size > 1 else label

        def results(event, _value):
            matches, standings = self.results_counts.get(event.pk, (0, 0))
            parts = []
            if matches:
                parts.append(ngettext("%(count)s match", "%(count)s matches", matches) % {"count": matches})
            if standings:
                parts.append(ngettext("%(count)s standing", "%(count)s standings", standings) % {"count": standings})
            return ", ".join(parts) or none_yet

        return {
            "date": (attrgetter("date"), lambda _, value: day(value)),
            "name": (attrgetter("name"), name),
            "format": (attrgetter("format"), format_shown),
            "player_count": (attrgetter("player_count"), lambda _, count: count),
            "results": (always, results),
            "status": (attrgetter("status"), lambda event, status: status_tag(status, event.get_status_display())),
            "organizer": (attrgetter("organizer"), lambda _, organizer: organizer),
        }


def _participant_name(named: NamedParticipant | None) -> str:
    """A participant as the preview names it: a player by name and number, a team by its name or its members."""
    if named is None or not (named.name or named.membership_number):
        return "—"
    return f"{named.name} ({named.membership_number})" if named.membership_number else named.name


def _exact(value: float, rounding: str) -> SafeString:
    """The value as the category shows it, with two decimals on hover (rounded, as the changes beside it are).

    Written as a plain string of numbers: through format_html and number_format, the two of each of a large
    event's 900 rows were a tenth of its preview."""
    return SafeString(f'<span title="{decimal(value, 2)}">{rating_shown(value, rounding)}</span>')  # numbers only


class PreviewChangeTable(OnePassTable):
    """Each participant's rating before the event and after it, as submitting would make it.

    Paged and sorted as the event page's rating changes are (biggest gain
    first); the players are named for the page shown only (`participants`, set
    by organize.views.preview once the table is paginated)."""

    participant = tables.Column(
        verbose_name=gettext_lazy("Player"),
        attrs=cell(gettext_lazy("Player"), "col-name"),
        empty_values=(),
        orderable=False,  # named for the page shown only
    )
    record = tables.Column(
        verbose_name=gettext_lazy("W–D–L"), accessor="wins", attrs=cell(gettext_lazy("W–D–L"), "num"), orderable=False
    )
    matches_before = tables.Column(
        verbose_name=gettext_lazy("Matches before"), attrs=cell(gettext_lazy("Matches before"), "num hide-phone")
    )
    rating_before = tables.Column(
        verbose_name=pgettext_lazy("rating", "Before"), attrs=cell(pgettext_lazy("rating", "Before"), "num")
    )
    rating_after = tables.Column(
        verbose_name=pgettext_lazy("rating", "After"), attrs=cell(pgettext_lazy("rating", "After"), "num col-rating")
    )
    change = tables.Column(verbose_name=gettext_lazy("Change"), attrs=cell(gettext_lazy("Change"), "num col-change"))
    k = tables.Column(
        verbose_name=gettext_lazy("K (why)"),
        accessor="k_reasons",
        attrs=cell("K", "col-k"),
        empty_values=(),
        orderable=False,
    )

    class Meta:
        template_name = ONE_PASS_TEMPLATE  # a large event's 900 rows, each cell through the template, took a second
        attrs = {"class": "table change-table compact-on-phone"}

    def __init__(self, data, *, rounding: str, **kwargs):
        super().__init__(data, **kwargs)
        self.rounding = rounding
        self.participants: dict[int, NamedParticipant] = {}

    def participants_shown(self) -> set[int]:
        return {row.record.participant for row in self.paginated_rows}

    def cells(self) -> dict[str, Cell]:
        participants, rounding = self.participants, self.rounding
        provisional = format_html(' <span class="tag tag-muted">{}</span>', _("provisional"))
        provisional_formula = _("provisional formula")

        def rating_after(record, value):
            return (
                format_html("{}{}", _exact(value, rounding), provisional)
                if record.provisional
                else _exact(value, rounding)
            )

        def k(record, reasons):
            if record.provisional and not reasons:
                return provisional_formula
            return "; ".join(reasons) or "—"

        return {
            "participant": (always, lambda record, _: _participant_name(participants.get(record.participant))),
            "record": (attrgetter("wins"), lambda record, _: f"{record.wins}–{record.draws}–{record.losses}"),
            "matches_before": (attrgetter("matches_before"), lambda _, matches: matches),
            "rating_before": (attrgetter("rating_before"), lambda _, rating: _exact(rating, rounding)),
            "rating_after": (attrgetter("rating_after"), rating_after),
            "change": (attrgetter("change"), lambda _, change: change_cell(change)),
            "k": (attrgetter("k_reasons"), k),
        }


class PreviewPointsTable(tables.Table):
    """V:EKN event points each player would get."""

    rank = tables.Column(
        verbose_name=gettext_lazy("Rank"), accessor="standing__rank", attrs=cell(gettext_lazy("Rank"), "num col-rank")
    )
    participant = tables.Column(
        verbose_name=gettext_lazy("Player"),
        accessor="standing__participant",
        attrs=cell(gettext_lazy("Player"), "col-name"),
    )
    vp = tables.Column(
        verbose_name=gettext_lazy("VP"), accessor="standing__vp", attrs=cell(gettext_lazy("Victory points"), "num")
    )
    gw = tables.Column(
        verbose_name=gettext_lazy("GW"), accessor="standing__gw", attrs=cell(gettext_lazy("Game wins"), "num")
    )
    final = tables.Column(
        verbose_name=pgettext_lazy("final placing", "Final"),
        accessor="standing__final",
        attrs=cell(pgettext_lazy("final placing", "Final")),
        empty_values=(),
    )
    bonus = tables.Column(
        verbose_name=gettext_lazy("Finals bonus"),
        accessor="points__bonus",
        attrs=cell(gettext_lazy("Finals bonus"), "num"),
    )
    points = tables.Column(
        verbose_name=gettext_lazy("Points"), accessor="points__points", attrs=cell(gettext_lazy("Rating points"), "num")
    )

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False  # in the standings' order, as the event page shows them
        attrs = {"class": "table standings-table compact-on-phone"}

    def __init__(self, data, *, rounding: str, **kwargs):
        super().__init__(data, **kwargs)
        self.rounding = rounding
        self.participants: dict[int, NamedParticipant] = {}

    def participants_shown(self) -> set[int]:
        return {row.record.standing.participant_id for row in self.paginated_rows}

    def render_participant(self, record):
        return _participant_name(self.participants.get(record.standing.participant_id))

    def render_vp(self, value):
        return number_format(f"{float(value):g}")  # 2.5, or 2,5 in German

    def render_final(self, record):
        return record.standing.get_final_display() if record.standing.final else "—"

    def render_bonus(self, value):
        return number_format(value, 1) if value else "—"

    def render_points(self, record):
        return format_html("<strong>{}</strong>", _exact(record.points.points, self.rounding))
