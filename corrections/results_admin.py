"""Events, matches and standings in the admin site. A match is changed through the correction services,
so every edit is logged and rated again like a correction made on the site's own pages.

Each save or removal of rated results here says so (events.signals.results_changed), once per change: the
ratings app queues the recomputes.
"""

from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import ORDER_VAR
from django.db import transaction
from django.db.models import F, OrderBy, Prefetch, Q
from django.db.models.functions import Coalesce
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from corrections.services import NewMatch, Result, kind_problem, match_add, match_correct
from events.models import Event, Match, MatchResult, Standing
from events.services import (
    event_change_kinds,
    event_kinds,
    event_rated_fields,
    event_rated_fields_stored,
    kinds_merge,
    results_changed_send,
)
from lib.admin_lists import EstimatedCountPaginator, IndexedValuesFilter, QuickActionCheckbox
from lib.admin_search import search_words
from lib.lookups import any_of
from lib.tables import country_label
from players.models import Participant
from players.selectors import participants_containing

PARTICIPANT_SEARCH_FIELDS = ["player__membership_number", "player__name", "team__name", "team__member_key"]


def _participant_search_fields(prefix):
    return [f"{prefix}__{field}" for field in PARTICIPANT_SEARCH_FIELDS]


def _events_containing(word: str) -> list[int]:
    """The events whose name, code or city contain `word` in any case, through their trigram index (events 0004)."""
    found = Event.objects.filter(Q(name__icontains=word) | Q(code__icontains=word) | Q(city__icontains=word))
    return list(found.order_by().values_list("pk", flat=True))


def _check_participant_kind(form, field, event):
    """Individual events are played by players, team events by teams."""
    participant = form.cleaned_data.get(field)
    expected = Participant.Kind.PLAYER if event.team_size == 1 else Participant.Kind.TEAM
    if participant is not None and participant.kind != expected:
        form.add_error(field, kind_problem(str(event), expected, participant))


class EventFilter(admin.SimpleListFilter):
    """Names the event chosen from its page; listing every event would be far too long."""

    title = gettext_lazy("event")
    parameter_name = "event"

    def lookups(self, request, model_admin):
        event = Event.objects.filter(pk=self.value()).first() if (self.value() or "").isdigit() else None
        return [(str(event.pk), str(event))] if event else []

    def queryset(self, request, queryset):
        return queryset.filter(event_id=self.value()) if self.value() else queryset


class RoundFilter(admin.SimpleListFilter):
    """The rounds of the event chosen (EventFilter), offered once one is: the rounds of every match would be a
    scan of every match on every page of the list."""

    title = gettext_lazy("round")
    parameter_name = "round"

    def lookups(self, request, model_admin):
        event = request.GET.get(EventFilter.parameter_name, "")
        if not event.isdigit():  # a round asked for in every event is shown as chosen
            return [(self.value(), self.value())] if (self.value() or "").isdigit() else []
        rounds = Match.objects.filter(event_id=event).order_by("round").values_list("round", flat=True).distinct()
        return [(str(number), str(number)) for number in rounds]

    def queryset(self, request, queryset):
        value = self.value() or ""
        return queryset.filter(round=value) if value.isdigit() else queryset


class MatchResultFilter(admin.SimpleListFilter):
    title = gettext_lazy("result")
    parameter_name = "result"

    CONDITIONS = {
        MatchResult.WIN: Q(participant2__isnull=False, games1__gt=F("games2")),
        MatchResult.LOSS: Q(participant2__isnull=False, games1__lt=F("games2")),
        MatchResult.DRAW: Q(participant2__isnull=False, games1=F("games2")),
        MatchResult.BYE: Q(participant2__isnull=True),
    }

    def lookups(self, request, model_admin):
        return MatchResult.choices

    def queryset(self, request, queryset):
        condition = self.CONDITIONS.get(self.value())
        return queryset.filter(condition) if condition is not None else queryset


@admin.register(Event)
class EventAdmin(QuickActionCheckbox, admin.ModelAdmin):
    list_display = [
        "date",
        "name",
        "format",
        "team_size",
        "k",
        "player_count",
        "level2_judge",
        "structure",
        "country_shown",
        "level",
        "status",
        "organizer",
    ]
    list_display_links = ["date", "name"]
    list_filter = [("format", IndexedValuesFilter), "k", "team_size", "structure", "level", "status", "level2_judge"]
    list_select_related = ["organizer"]
    search_fields = ["name", "code", "city"]
    show_full_result_count = False  # a second count of every event on each filtered page
    paginator = EstimatedCountPaginator  # unfiltered, every event counted on each page (lib.admin_lists)
    date_hierarchy = "date"
    autocomplete_fields = ["organizer"]
    readonly_fields = ["created_at", "match_link", "standing_link", "add_match_link"]
    fieldsets = [
        (None, {"fields": ["name", "code", "date", "format", "team_size", "structure", "player_count"]}),
        (gettext_lazy("Rating"), {"fields": ["k", "level2_judge", "level"]}),
        (pgettext_lazy("venue", "Place"), {"fields": ["country", "city"]}),
        (gettext_lazy("Administration"), {"fields": ["organizer", "status", "created_at"]}),
        (gettext_lazy("Results"), {"fields": ["match_link", "standing_link", "add_match_link"]}),
    ]

    @admin.display(description=gettext_lazy("country"), ordering="country")
    def country_shown(self, event):
        # The field's own display looks its name up among the 250 countries for every row: 0.14 s a page.
        return country_label(event.country)

    @admin.display(description=gettext_lazy("missing match"))
    def add_match_link(self, event):
        if event.pk is None:
            return "—"
        url = reverse("corrections:match_add", args=[event.pk])
        return format_html('<a href="{}">{}</a>', url, _("Add a match, with a reason and an impact preview"))

    @admin.display(description=gettext_lazy("matches"))
    def match_link(self, event):
        return self._changelist_link(event, Match, event.matches.count())

    @admin.display(description=gettext_lazy("standings"))
    def standing_link(self, event):
        return self._changelist_link(event, Standing, event.standings.count())

    def _changelist_link(self, event, model, count):
        if event.pk is None:
            return "—"
        url = reverse(f"admin:events_{model._meta.model_name}_changelist") + f"?{EventFilter.parameter_name}={event.pk}"
        label = model._meta.verbose_name if count == 1 else model._meta.verbose_name_plural
        return format_html('<a href="{}">{} {}</a>', url, count, label)

    def save_model(self, request, obj, form, change):
        # An event moved to another date or format changes its old kind and its new one.
        before = event_rated_fields_stored(event_id=obj.pk) if change else None
        super().save_model(request, obj, form, change)
        kinds = event_change_kinds(before=before, after=event_rated_fields(event=obj))
        results_changed_send(kinds=kinds, reason=f"{obj} {'changed' if change else 'added'}", requested_by=request.user)

    def delete_model(self, request, obj):
        kinds = event_kinds(events=[obj])
        super().delete_model(request, obj)
        results_changed_send(kinds=kinds, reason=f"{obj} removed", requested_by=request.user)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():  # the admin's actions run outside a transaction: the runs go with the deletion
            events = list(queryset)
            super().delete_queryset(request, queryset)
            results_changed_send(kinds=event_kinds(events=events), reason=_removed(events), requested_by=request.user)


def _removed(rows) -> str:
    return f"{rows[0]} removed" if len(rows) == 1 else f"{len(rows)} {rows[0]._meta.verbose_name_plural} removed"


class ResultRowsAdmin(QuickActionCheckbox, admin.ModelAdmin):
    """Matches and standings: removing them in the admin asks for the recompute of their events' lists."""

    def delete_model(self, request, obj):
        kinds = event_kinds(events=[obj.event])
        super().delete_model(request, obj)
        results_changed_send(kinds=kinds, reason=f"result removed in {obj.event}", requested_by=request.user)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():  # the admin's actions run outside a transaction: the runs go with the deletion
            rows = list(queryset.select_related("event"))
            super().delete_queryset(request, queryset)
            kinds = event_kinds(events={row.event_id: row.event for row in rows}.values())
            results_changed_send(kinds=kinds, reason=_removed(rows), requested_by=request.user)


RESULT_FIELDS = ["games1", "games2", "draws", "elimination"]
PAIRING_FIELDS = ["event", "round", "participant1", "participant2"]


class MatchAdminForm(forms.ModelForm):
    """A match added or its result corrected, always with a reason: both are recorded as corrections (SPEC 5)."""

    correction_reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=gettext_lazy(
            "Why the match is added or its result changed: recorded with the old and new result in the "
            "public correction log."
        ),
    )

    class Meta:
        model = Match
        fields = [*PAIRING_FIELDS, *RESULT_FIELDS]

    def result(self) -> Result:
        return Result(*(self.cleaned_data[name] for name in RESULT_FIELDS))

    def clean(self):
        cleaned_data = super().clean()
        if self.instance.pk is not None:
            if not self.has_changed() or not set(self.changed_data) & set(RESULT_FIELDS):
                raise forms.ValidationError(_("The result is the one already recorded: nothing to correct."))
            if self.instance.participant2_id is None:
                raise forms.ValidationError(_("A bye has no result to correct: it is never rated."))
            return cleaned_data
        event, round_number = cleaned_data.get("event"), cleaned_data.get("round")
        if event is None:
            return cleaned_data
        for field in ["participant1", "participant2"]:
            _check_participant_kind(self, field, event)
        if round_number is None:
            return cleaned_data
        # The unique constraints only catch a participant twice in the same column.
        for field in ["participant1", "participant2"]:
            participant = cleaned_data.get(field)
            if participant is None:
                continue
            booked = Match.objects.filter(event=event, round=round_number).filter(
                Q(participant1=participant) | Q(participant2=participant)
            )
            if self.instance.pk is not None:
                booked = booked.exclude(pk=self.instance.pk)
            if booked.exists():
                self.add_error(
                    field,
                    _("%(participant)s already plays a match in round %(round)s.")
                    % {"participant": participant, "round": round_number},
                )
        return cleaned_data


# Events and sides a search word finds, at most, for the matches found to be sorted after they are read.
FEW_FOUND = 100


@admin.register(Match)
class MatchAdmin(ResultRowsAdmin):
    """Matches are changed through the correction services: a reason, a Correction record and a recompute.

    An existing match keeps its pairing (remove it and add the right one
    instead); removing one asks for a reason on the site's removal page.
    """

    form = MatchAdminForm
    list_display = ["event", "round", "participant1", "participant2", "games", "draws", "elimination", "result"]
    list_filter = [EventFilter, RoundFilter, "elimination", MatchResultFilter]
    show_full_result_count = False  # a second count of every match on each filtered page
    paginator = EstimatedCountPaginator  # unfiltered, every match counted: 30-60 ms a page at a million
    # The event orders the list; the sides are named afterwards, for the page's rows only (get_queryset).
    list_select_related = ["event"]
    search_fields = [
        "event__name",
        "event__code",
        *_participant_search_fields("participant1"),
        *_participant_search_fields("participant2"),
    ]
    autocomplete_fields = ["event", "participant1", "participant2"]

    def get_queryset(self, request):
        """Each side with its player or team read for the rows shown, two queries of a page's ids: joined to every
        match a search finds, PostgreSQL looked all of them up before sorting them by date and keeping a page
        (the largest event's 3,720 matches, 100 ms of a search for its code at a million matches)."""
        sides = Participant.objects.select_related("player", "team")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("participant1", queryset=sides), Prefetch("participant2", queryset=sides))
        )

    def get_search_results(self, request, queryset, search_term):
        """The admin's search (every word in an event's name, code or city or in a side's search_fields), each word's
        events and sides found first in their own tables, then the matches through their indexes: ORed across
        the joins of every match, a search read all of them (1.2-2.3 s at a million matches)."""
        few = False
        for word in search_words(search_term):
            events, sides = _events_containing(word), participants_containing(words=[word])
            few = few or len(events) + len(sides) <= FEW_FOUND  # the matches of a few events and sides at most
            in_event, as_side1, as_side2 = (
                any_of("event_id", events),
                any_of("participant1_id", sides),
                any_of("participant2_id", sides),
            )
            queryset = queryset.filter(Q(in_event) | Q(as_side1) | Q(as_side2))
        if few and not request.GET.get(ORDER_VAR):
            # The list's own order (the newest event first), but the few matches found read first and sorted
            # after: along the events' date index, PostgreSQL walked 105,000 events newest first looking for the
            # one event a search for its code finds (65 ms at ten million matches, against 4 ms). The date in an
            # expression no index orders by. A search finding tens of thousands (a surname) meets a page's worth
            # soon along the index, where sorting them all cost more (47 against 7 ms).
            newest = Coalesce("event__date", "event__date")
            queryset = queryset.order_by(OrderBy(newest, descending=True), "-event_id", "round", "id")
        return queryset, False

    @admin.display(description=gettext_lazy("games"))
    def games(self, match):
        return _("bye") if match.is_bye else f"{match.games1}–{match.games2}"

    @admin.display(description=gettext_lazy("result"))
    def result(self, match):
        return match.result.label

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return [*PAIRING_FIELDS, "corrections"]

    def get_fields(self, request, obj=None):
        fields = [*PAIRING_FIELDS, *RESULT_FIELDS, "correction_reason"]
        return fields if obj is None else [*fields, "corrections"]

    @admin.display(description=gettext_lazy("corrections"))
    def corrections(self, match):
        links = format_html(
            '<a href="{}">{}</a> · <a href="{}">{}</a>',
            reverse("corrections:match_correct", args=[match.pk]),
            _("Correct with an impact preview"),
            reverse("corrections:match_remove", args=[match.pk]),
            _("Remove (with a reason)"),
        )
        recorded = format_html_join(
            "",
            '<li><a href="{}">{}</a></li>',
            (
                (
                    correction.get_absolute_url(),
                    f"{correction.corrected_at:%Y-%m-%d}: {correction.old_result} → {correction.new_result}",
                )
                for correction in match.corrections.with_names()
            ),
        )
        return format_html("{}<ul>{}</ul>", links, recorded) if recorded else links

    def save_model(self, request, obj, form, change):
        reason = form.cleaned_data["correction_reason"]
        if change:
            match_correct(match=obj, result=form.result(), reason=reason, by=request.user)
        else:
            new = NewMatch(obj.event, obj.round, obj.participant1, obj.participant2, form.result())
            obj.pk = match_add(new=new, reason=reason, by=request.user).match_id

    def delete_view(self, request, object_id, extra_context=None):
        """Removing a match needs a reason (and shows its impact first): the site's removal page asks for both."""
        return redirect("corrections:match_remove", match_id=object_id)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # removals one by one, each with its reason
        return actions


class StandingAdminForm(forms.ModelForm):
    class Meta:
        model = Standing
        fields = ["event", "participant", "rank", "vp", "gw", "final"]

    def clean(self):
        cleaned_data = super().clean()
        if cleaned_data.get("event") is not None:
            _check_participant_kind(self, "participant", cleaned_data["event"])
        return cleaned_data


@admin.register(Standing)
class StandingAdmin(ResultRowsAdmin):
    form = StandingAdminForm
    list_display = ["event", "rank", "participant", "vp", "gw", "final"]
    list_filter = [EventFilter, "final"]
    list_select_related = ["event", "participant__player", "participant__team"]
    search_fields = ["event__name", "event__code", *_participant_search_fields("participant")]
    autocomplete_fields = ["event", "participant"]

    def save_model(self, request, obj, form, change):
        # A standing moved to another event changes the results of both.
        moved_from = Standing.objects.select_related("event").get(pk=obj.pk).event if change else obj.event
        super().save_model(request, obj, form, change)
        kinds = kinds_merge(event_kinds(events=[moved_from]), event_kinds(events=[obj.event]))
        results_changed_send(kinds=kinds, reason=f"result changed in {obj.event}", requested_by=request.user)
