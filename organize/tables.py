"""Tables of the organizers' pages (django-tables2)."""

import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html

from events.models import EventStatus
from lib.tables import TABLE_TEMPLATE, cell
from players.formatting import change_class, format_name, signed
from players.links import participant_entity
from ratings.formatting import rating_shown

STATUS_TAGS = {EventStatus.DRAFT: "tag tag-muted", EventStatus.SUBMITTED: "tag", EventStatus.RATED: "tag tag-yes"}


def status_tag(status: str, label: str):
    return format_html('<span class="{}">{}</span>', STATUS_TAGS.get(status, "tag"), label)


class OrganizeEventTable(tables.Table):
    date = tables.DateColumn("j M Y", verbose_name="Date", attrs=cell("Date", "col-date"))
    name = tables.Column(verbose_name="Event", attrs=cell("Event", "col-event"))
    format = tables.Column(verbose_name="Format", attrs=cell("Format"))
    player_count = tables.Column(verbose_name="Players", attrs=cell("Players", "num"))
    results = tables.Column(verbose_name="Results", accessor="match_count", orderable=False, attrs=cell("Results"))
    status = tables.Column(verbose_name="Status", attrs=cell("Status"))
    organizer = tables.Column(verbose_name="Organizer", attrs=cell("Organizer"))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table event-table"}
        empty_text = "No events yet: create one below."

    def __init__(self, data, *, show_organizer: bool, **kwargs):
        super().__init__(data, exclude=() if show_organizer else ("organizer",), **kwargs)
        self.anchor = "events"

    def render_name(self, record):
        return format_html('<a href="{}">{}</a>', reverse("organize:event", args=[record.pk]), record.name)

    def render_format(self, record):
        label = format_name(record.format)
        return f"{label} (teams)" if record.team_size > 1 else label

    def render_results(self, record):
        parts = []
        if record.match_count:
            parts.append(f"{record.match_count} match{'es' if record.match_count != 1 else ''}")
        if record.standing_count:
            parts.append(f"{record.standing_count} standing{'s' if record.standing_count != 1 else ''}")
        return ", ".join(parts) or "none yet"

    def render_status(self, record):
        return status_tag(record.status, record.get_status_display())


def _participant_name(participant) -> str:
    entity = participant_entity(participant)
    if entity is None:
        return "—"
    number = getattr(entity, "membership_number", None)
    name = entity.name or str(entity)
    return f"{name} ({number})" if number else name


def _exact(value: float, rounding: str):
    """The value as the category shows it, with two decimals on hover."""
    return format_html('<span title="{}">{}</span>', f"{value:.2f}", rating_shown(value, rounding))


class PreviewChangeTable(tables.Table):
    """Each participant's rating before the event and after it, as submitting would make it."""

    participant = tables.Column(verbose_name="Player", attrs=cell("Player", "col-name"), empty_values=())
    record = tables.Column(verbose_name="W–D–L", accessor="wins", attrs=cell("W–D–L", "num"))
    matches_before = tables.Column(verbose_name="Matches before", attrs=cell("Matches before", "num hide-phone"))
    rating_before = tables.Column(verbose_name="Before", attrs=cell("Before", "num"))
    rating_after = tables.Column(verbose_name="After", attrs=cell("After", "num col-rating"))
    change = tables.Column(verbose_name="Change", attrs=cell("Change", "num col-change"))
    k = tables.Column(verbose_name="K (why)", accessor="k_reasons", attrs=cell("K", "col-k"), empty_values=())

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table change-table compact-on-phone"}

    def __init__(self, data, *, participants: dict, rounding: str, **kwargs):
        super().__init__(data, **kwargs)
        self.participants, self.rounding = participants, rounding

    def render_participant(self, record):
        return _participant_name(self.participants.get(record.participant))

    def render_record(self, record):
        return f"{record.wins}–{record.draws}–{record.losses}"

    def render_rating_before(self, record):
        return _exact(record.rating_before, self.rounding)

    def render_rating_after(self, record):
        shown = _exact(record.rating_after, self.rounding)
        if record.provisional:
            return format_html('{} <span class="tag tag-muted">provisional</span>', shown)
        return shown

    def render_change(self, record):
        return format_html('<span class="{}">{}</span>', change_class(record.change), signed(record.change))

    def render_k(self, record):
        if record.provisional and not record.k_reasons:
            return "provisional formula"
        return "; ".join(record.k_reasons) or "—"


class PreviewPointsTable(tables.Table):
    """V:EKN event points each player would get."""

    rank = tables.Column(verbose_name="Rank", accessor="standing__rank", attrs=cell("Rank", "num col-rank"))
    participant = tables.Column(
        verbose_name="Player", accessor="standing__participant", attrs=cell("Player", "col-name")
    )
    vp = tables.Column(verbose_name="VP", accessor="standing__vp", attrs=cell("Victory points", "num"))
    gw = tables.Column(verbose_name="GW", accessor="standing__gw", attrs=cell("Game wins", "num"))
    final = tables.Column(verbose_name="Final", accessor="standing__final", attrs=cell("Final"), empty_values=())
    bonus = tables.Column(verbose_name="Finals bonus", accessor="points__bonus", attrs=cell("Finals bonus", "num"))
    points = tables.Column(verbose_name="Points", accessor="points__points", attrs=cell("Rating points", "num"))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table standings-table compact-on-phone"}

    def __init__(self, data, *, participants: dict, rounding: str, **kwargs):
        super().__init__(data, **kwargs)
        self.participants, self.rounding = participants, rounding

    def render_participant(self, record):
        return _participant_name(self.participants.get(record.standing.participant_id))

    def render_vp(self, value):
        return f"{float(value):g}"

    def render_final(self, record):
        return record.standing.get_final_display() if record.standing.final else "—"

    def render_bonus(self, value):
        return f"{value:.1f}" if value else "—"

    def render_points(self, record):
        return format_html("<strong>{}</strong>", _exact(record.points.points, self.rounding))
