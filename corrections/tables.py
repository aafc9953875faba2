"""Tables of the appeal and correction pages (django-tables2)."""

import django_tables2 as tables
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from corrections.models import AppealStatus, CorrectionKind
from lib.tables import TABLE_TEMPLATE, cell
from players.formatting import change_cell

STATUS_TAGS = {AppealStatus.OPEN: "tag", AppealStatus.ACCEPTED: "tag tag-yes", AppealStatus.REJECTED: "tag tag-muted"}
KIND_TAGS = {
    CorrectionKind.RESULT: "tag",
    CorrectionKind.REMOVAL: "tag tag-elim",
    CorrectionKind.ADDITION: "tag tag-yes",
}


def _event_cell(event, name: str, day):
    label = format_html("{} <small>({})</small>", name, f"{day:%Y-%m-%d}")
    if event is None:
        return format_html('{} <span class="muted">(event removed)</span>', label)
    return format_html('<a href="{}">{}</a>', reverse("events:detail", args=[event.pk]), label)


class CorrectionTable(tables.Table):
    """The public correction log: one row per correction, newest first."""

    corrected_at = tables.DateTimeColumn("Y-m-d H:i", verbose_name="Corrected", attrs=cell("Corrected", "col-date"))
    event = tables.Column(verbose_name="Event", empty_values=(), attrs=cell("Event", "col-event"))
    match = tables.Column(verbose_name="Match", accessor="round", attrs=cell("Match"))
    change = tables.Column(verbose_name="Change", accessor="kind", attrs=cell("Change"))
    reason = tables.Column(verbose_name="Reason", attrs=cell("Reason"))
    corrected_by = tables.Column(verbose_name="By", empty_values=(), attrs=cell("By"))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table correction-table cards-on-phone"}
        empty_text = "No correction matches."

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        self.anchor = "corrections"
        self.previous_label, self.next_label = "Newer", "Older"

    def render_corrected_at(self, record, value):
        return format_html(
            '<a href="{}" id="correction-{}">{}</a>',
            record.get_absolute_url(),
            record.pk,
            date_format(timezone.localtime(value), "DATETIME_FORMAT"),
        )

    def render_event(self, record):
        return _event_cell(record.event, record.event_name, record.event_date)

    def render_match(self, record):
        return format_html("Round {}: {}", record.round, record.pairing)

    def render_change(self, record):
        return format_html(
            '<span class="{}">{}</span> {} → <strong>{}</strong>',
            KIND_TAGS[record.kind],
            record.get_kind_display(),
            record.old_result,
            record.new_result,
        )

    def render_reason(self, record):
        appeal = format_html(" <small>(appeal #{})</small>", record.appeal_id) if record.appeal_id else ""
        return format_html("{}{}", Truncator(record.reason).chars(160), appeal)

    def render_corrected_by(self, record):
        return record.corrected_by_name


class _AppealTable(tables.Table):
    created_at = tables.DateTimeColumn("Y-m-d H:i", verbose_name="Filed", attrs=cell("Filed", "col-date"))
    match = tables.Column(verbose_name="Match", accessor="match_label", attrs=cell("Match"))
    claim = tables.Column(verbose_name="Reported → claimed", accessor="claimed_games1", attrs=cell("Claim"))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False

    def render_match(self, record):
        if record.match is None:
            return format_html('{} <span class="muted">(match removed)</span>', record.match_label)
        url = reverse("events:detail", args=[record.match.event_id])
        return format_html('<a href="{}">{}</a>', url, record.match_label)

    def render_claim(self, record):
        return format_html("{} → <strong>{}</strong>", record.reported_result, record.claimed_result)


class MyAppealTable(_AppealTable):
    """A player's own appeals with their status and the admin's reason."""

    status = tables.Column(verbose_name="Status", attrs=cell("Status"))

    class Meta(_AppealTable.Meta):
        attrs = {"class": "table appeal-table cards-on-phone"}
        empty_text = "You have not appealed any match."
        row_attrs = {"id": lambda record: f"appeal-{record.pk}"}

    def render_status(self, record):
        tag = format_html('<span class="{}">{}</span>', STATUS_TAGS[record.status], record.get_status_display())
        if record.is_open:
            return tag
        correction = getattr(record, "correction", None)
        link = (
            format_html(' <a href="{}">correction #{}</a>', correction.get_absolute_url(), correction.pk)
            if correction
            else ""
        )
        return format_html(
            "{} {}{}<br><small>{}</small>", tag, f"{record.decided_at:%Y-%m-%d}", link, record.decision_reason
        )


class AppealQueueTable(_AppealTable):
    """The admins' queue: open appeals, oldest first."""

    player = tables.Column(verbose_name="Player", attrs=cell("Player"))
    explanation = tables.Column(verbose_name="What happened", attrs=cell("What happened"))
    review = tables.Column(verbose_name="Review", accessor="pk", attrs=cell("Review"))

    class Meta(_AppealTable.Meta):
        attrs = {"class": "table appeal-table cards-on-phone"}
        empty_text = "No appeal is waiting."
        sequence = ("created_at", "player", "match", "claim", "explanation", "review")

    def render_player(self, value):
        return format_html('<a href="{}">{}</a>', value.get_absolute_url(), f"{value.name} ({value.membership_number})")

    def render_explanation(self, value):
        return Truncator(value).chars(140)

    def render_review(self, value):
        return format_html('<a class="button" href="{}">Review</a>', reverse("corrections:appeal_review", args=[value]))


class DecidedAppealTable(AppealQueueTable):
    status = tables.Column(verbose_name="Decision", accessor="status", attrs=cell("Decision"))

    class Meta(AppealQueueTable.Meta):
        empty_text = "No appeal decided yet."
        sequence = ("created_at", "player", "match", "claim", "status", "review")
        exclude = ("explanation",)

    def render_status(self, record):
        tag = format_html('<span class="{}">{}</span>', STATUS_TAGS[record.status], record.get_status_display())
        return format_html(
            "{} <small>by {}: {}</small>", tag, record.decided_by or "—", Truncator(record.decision_reason).chars(100)
        )

    def render_review(self, value):
        return format_html('<a href="{}">Details</a>', reverse("corrections:appeal_review", args=[value]))


class ImpactTable(tables.Table):
    """Whose rating a correction moves, and by how much: largest change first."""

    name = tables.Column(verbose_name="Player", attrs=cell("Player", "col-name"))
    rating_now = tables.Column(verbose_name="Now", attrs=cell("Rating now", "num"))
    rating_after = tables.Column(verbose_name="After", attrs=cell("Rating after", "num col-rating"))
    change = tables.Column(verbose_name="Change", empty_values=(), attrs=cell("Change", "num col-change"))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table impact-table compact-on-phone"}
        empty_text = "No rating changes."

    def render_name(self, record):
        tag = mark_safe(' <span class="tag">in the match</span>') if record.in_match else ""
        return format_html("{} <small>({})</small>{}", record.name, record.display_id, tag)

    def render_rating_now(self, value):
        return f"{value:.2f}"

    def render_rating_after(self, value):
        return format_html("<strong>{}</strong>", f"{value:.2f}")

    def render_change(self, record):
        if record.change is None:
            return "new" if record.rating_now is None else "no longer rated"
        return change_cell(record.change)
