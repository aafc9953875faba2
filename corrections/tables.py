"""Tables of the appeal and correction pages (django-tables2)."""

import django_tables2 as tables
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from corrections.models import AppealStatus, CorrectionKind
from lib.tables import TABLE_TEMPLATE, cell
from players.formatting import change_cell, decimal

STATUS_TAGS = {AppealStatus.OPEN: "tag", AppealStatus.ACCEPTED: "tag tag-yes", AppealStatus.REJECTED: "tag tag-muted"}
KIND_TAGS = {
    CorrectionKind.RESULT: "tag",
    CorrectionKind.REMOVAL: "tag tag-elim",
    CorrectionKind.ADDITION: "tag tag-yes",
}


def _event_cell(event_id: int | None, name: str, day):
    """The event as the correction recorded it, linked by its id while it exists (no event read per row)."""
    label = format_html("{} <small>({})</small>", name, f"{day:%Y-%m-%d}")
    if event_id is None:
        return format_html('{} <span class="muted">({})</span>', label, _("event removed"))
    return format_html('<a href="{}">{}</a>', reverse("events:detail", args=[event_id]), label)


class CorrectionTable(tables.Table):
    """The public correction log: one row per correction, newest first."""

    corrected_at = tables.DateTimeColumn(
        "Y-m-d H:i", verbose_name=gettext_lazy("Corrected"), attrs=cell(gettext_lazy("Corrected"), "col-date")
    )
    event = tables.Column(  # read by its id: the column's own accessor would read each row's event
        verbose_name=gettext_lazy("Event"),
        accessor="event_id",
        empty_values=(),
        attrs=cell(gettext_lazy("Event"), "col-event"),
    )
    match = tables.Column(verbose_name=gettext_lazy("Match"), accessor="round", attrs=cell(gettext_lazy("Match")))
    change = tables.Column(verbose_name=gettext_lazy("Change"), accessor="kind", attrs=cell(gettext_lazy("Change")))
    reason = tables.Column(verbose_name=gettext_lazy("Reason"), attrs=cell(gettext_lazy("Reason")))
    corrected_by = tables.Column(verbose_name=gettext_lazy("By"), empty_values=(), attrs=cell(gettext_lazy("By")))

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table correction-table cards-on-phone"}
        empty_text = gettext_lazy("No correction matches.")

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        self.anchor = "corrections"
        self.previous_label, self.next_label = _("Newer"), _("Older")

    def render_corrected_at(self, record, value):
        return format_html(
            '<a href="{}" id="correction-{}">{}</a>',
            record.get_absolute_url(),
            record.pk,
            date_format(timezone.localtime(value), "DATETIME_FORMAT"),
        )

    def render_event(self, record):
        return _event_cell(record.event_id, record.event_name, record.event_date)

    def render_match(self, record):
        return _("Round %(round)s: %(pairing)s") % {"round": record.round, "pairing": record.pairing}

    def render_change(self, record):
        return format_html(
            '<span class="{}">{}</span> {} → <strong>{}</strong>',
            KIND_TAGS[record.kind],
            record.get_kind_display(),
            record.old_result,
            record.new_result,
        )

    def render_reason(self, record):
        appeal = (
            format_html(" <small>({})</small>", _("appeal #%(number)s") % {"number": record.appeal_id})
            if record.appeal_id
            else ""
        )
        return format_html("{}{}", Truncator(record.reason).chars(160), appeal)

    def render_corrected_by(self, record):
        return record.corrected_by_name


class _AppealTable(tables.Table):
    created_at = tables.DateTimeColumn(
        "Y-m-d H:i", verbose_name=gettext_lazy("Filed"), attrs=cell(gettext_lazy("Filed"), "col-date")
    )
    match = tables.Column(verbose_name=gettext_lazy("Match"), accessor="match_label", attrs=cell(gettext_lazy("Match")))
    claim = tables.Column(
        verbose_name=gettext_lazy("Reported → claimed"),
        accessor="claimed_games1",
        attrs=cell(pgettext_lazy("appeal", "Claim")),
    )

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False

    def render_match(self, record):
        if record.match is None:
            return format_html('{} <span class="muted">({})</span>', record.match_label, _("match removed"))
        url = reverse("events:detail", args=[record.match.event_id])
        return format_html('<a href="{}">{}</a>', url, record.match_label)

    def render_claim(self, record):
        return format_html("{} → <strong>{}</strong>", record.reported_result, record.claimed_result)


class MyAppealTable(_AppealTable):
    """A player's own appeals with their status and the admin's reason."""

    status = tables.Column(verbose_name=gettext_lazy("Status"), attrs=cell(gettext_lazy("Status")))

    class Meta(_AppealTable.Meta):
        attrs = {"class": "table appeal-table cards-on-phone"}
        empty_text = gettext_lazy("You have not appealed any match.")
        row_attrs = {"id": lambda record: f"appeal-{record.pk}"}

    def render_status(self, record):
        tag = format_html('<span class="{}">{}</span>', STATUS_TAGS[record.status], record.get_status_display())
        if record.is_open:
            return tag
        correction = getattr(record, "correction", None)
        link = (
            format_html(
                ' <a href="{}">{}</a>',
                correction.get_absolute_url(),
                _("correction #%(number)s") % {"number": correction.pk},
            )
            if correction
            else ""
        )
        return format_html(
            "{} {}{}<br><small>{}</small>", tag, f"{record.decided_at:%Y-%m-%d}", link, record.decision_reason
        )


class AppealQueueTable(_AppealTable):
    """The admins' queue: open appeals, oldest first."""

    player = tables.Column(verbose_name=gettext_lazy("Player"), attrs=cell(gettext_lazy("Player")))
    explanation = tables.Column(verbose_name=gettext_lazy("What happened"), attrs=cell(gettext_lazy("What happened")))
    review = tables.Column(
        verbose_name=pgettext_lazy("noun", "Review"), accessor="pk", attrs=cell(pgettext_lazy("noun", "Review"))
    )

    class Meta(_AppealTable.Meta):
        attrs = {"class": "table appeal-table cards-on-phone"}
        empty_text = gettext_lazy("No appeal is waiting.")
        sequence = ("created_at", "player", "match", "claim", "explanation", "review")

    def render_player(self, value):
        return format_html('<a href="{}">{}</a>', value.get_absolute_url(), f"{value.name} ({value.membership_number})")

    def render_explanation(self, value):
        return Truncator(value).chars(140)

    def render_review(self, value):
        url = reverse("corrections:appeal_review", args=[value])
        return format_html('<a class="button" href="{}">{}</a>', url, pgettext("button", "Review"))


class DecidedAppealTable(AppealQueueTable):
    status = tables.Column(
        verbose_name=gettext_lazy("Decision"), accessor="status", attrs=cell(gettext_lazy("Decision"))
    )

    class Meta(AppealQueueTable.Meta):
        empty_text = gettext_lazy("No appeal decided yet.")
        sequence = ("created_at", "player", "match", "claim", "status", "review")
        exclude = ("explanation",)

    def render_status(self, record):
        tag = format_html('<span class="{}">{}</span>', STATUS_TAGS[record.status], record.get_status_display())
        decided = _("by %(admin)s: %(reason)s") % {
            "admin": record.decided_by or "—",
            "reason": Truncator(record.decision_reason).chars(100),
        }
        return format_html("{} <small>{}</small>", tag, decided)

    def render_review(self, value):
        return format_html('<a href="{}">{}</a>', reverse("corrections:appeal_review", args=[value]), _("Details"))


class ImpactTable(tables.Table):
    """Whose rating a correction moves, and by how much: largest change first."""

    name = tables.Column(verbose_name=gettext_lazy("Player"), attrs=cell(gettext_lazy("Player"), "col-name"))
    rating_now = tables.Column(verbose_name=gettext_lazy("Now"), attrs=cell(gettext_lazy("Rating now"), "num"))
    rating_after = tables.Column(
        verbose_name=gettext_lazy("After"), attrs=cell(gettext_lazy("Rating after"), "num col-rating")
    )
    change = tables.Column(
        verbose_name=gettext_lazy("Change"), empty_values=(), attrs=cell(gettext_lazy("Change"), "num col-change")
    )

    class Meta:
        template_name = TABLE_TEMPLATE
        orderable = False
        attrs = {"class": "table impact-table compact-on-phone"}
        empty_text = gettext_lazy("No rating changes.")

    def render_name(self, record):
        tag = format_html(' <span class="tag">{}</span>', _("in the match")) if record.in_match else ""
        return format_html("{} <small>({})</small>{}", record.name, record.display_id, tag)

    def render_rating_now(self, value):
        return decimal(value, 2)

    def render_rating_after(self, value):
        return format_html("<strong>{}</strong>", decimal(value, 2))

    def render_change(self, record):
        if record.change is None:
            return pgettext("rating", "new") if record.rating_now is None else _("no longer rated")
        return change_cell(record.change)


IMPACT_ROWS_SHOWN = 100  # a change deep in a big history moves tens of thousands of ratings, most by a hair


def impact_tables(impacts) -> list[tuple]:
    """(impact, its table, how many changes it leaves out) for each of `impacts` (ratings.impact): the largest
    changes, the match's sides always among them. A page of 27,000 rows took seconds to draw, and an admin
    deciding on the change reads the largest ones."""
    shown = []
    for impact in impacts:
        rows = impact.rows[:IMPACT_ROWS_SHOWN] + [row for row in impact.rows[IMPACT_ROWS_SHOWN:] if row.in_match]
        shown.append((impact, ImpactTable(rows), impact.changes - len(rows)))
    return shown
