from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import SEARCH_VAR
from django.db.models import F, OrderBy, Prefetch

from events.models import FinalPlacing
from lib.admin_lists import EstimatedCountPaginator
from players.admin import ContinentFilter, ParticipantSearch
from players.models import Participant
from ratings.models import (
    Category,
    CurrentRank,
    CurrentRating,
    EventScore,
    OfficialList,
    RankingSnapshot,
    RatingEntry,
    RecomputeRun,
    Ruleset,
    SnapshotRating,
)
from ratings.services.runs import recompute_enqueue


class CategoryAdminForm(forms.ModelForm):
    class Meta:
        model = Category
        fields = [
            "name",
            "slug",
            "position",
            "ruleset",
            "formats",
            "components",
            "team_size",
            "start_rating",
            "ranked_after",
            "provisional_until",
            "display_rounding",
            "inactivity_months",
            "window_months",
            "best_of",
        ]

    def clean(self):
        cleaned_data = super().clean()
        ruleset = cleaned_data.get("ruleset")
        if ruleset == Ruleset.DERIVED:
            components = cleaned_data.get("components", "").split()
            if not components:
                self.add_error("components", "A derived category averages other categories: name at least one.")
            unknown = sorted(set(components) - set(Category.objects.values_list("slug", flat=True)))
            if unknown:
                self.add_error("components", f"No category has the slug: {', '.join(unknown)}.")
        elif ruleset and not cleaned_data.get("formats", "").strip():
            self.add_error("formats", "Name the formats whose events this category rates.")
        return cleaned_data


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    form = CategoryAdminForm
    list_display = [
        "position",
        "slug",
        "name",
        "ruleset",
        "formats",
        "team_size",
        "ranked_after",
        "provisional_until",
        "display_rounding",
    ]
    list_display_links = ["slug", "name"]
    list_editable = ["position"]
    list_filter = ["ruleset", "team_size", "display_rounding"]
    search_fields = ["slug", "name", "formats"]
    actions = ["recompute_whole_history"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (None, {"fields": ["name", "slug", "position"]}),
        ("What it rates", {"fields": ["ruleset", "formats", "components", "team_size"]}),
        (
            "Thresholds and display",
            {"fields": ["start_rating", "ranked_after", "provisional_until", "display_rounding"]},
        ),
        ("V:EKN", {"fields": ["inactivity_months", "window_months", "best_of"], "classes": ["collapse"]}),
    ]

    @admin.action(description="Recompute the whole rating history (in the background)")
    def recompute_whole_history(self, request, queryset):
        runs = [
            recompute_enqueue(category=category, since=None, reason="requested in the admin", requested_by=request.user)
            for category in queryset
        ]
        queued = [run for run in runs if run]
        self.message_user(
            request,
            f"{len(queued)} recompute(s) queued; follow them under Recompute runs."
            + (" Derived categories are computed when read and need none." if len(queued) < len(runs) else ""),
        )


class ListedContinentFilter(ContinentFilter):
    """The continent of a list's rows, which they store: at a million matches, reading which continents today's
    lists hold took 23 ms a page, and a dozen past lists' 64 ms."""

    def on(self, queryset, continent: str):
        return queryset.filter(continent=continent)


class FinalFilter(admin.SimpleListFilter):
    """A V:EKN score's place in the final, among the places the model names (FinalPlacing): not read from every
    score (a `DISTINCT`, 26 ms at ten million matches)."""

    title = "final"
    parameter_name = "final"

    def lookups(self, request, model_admin):
        return FinalPlacing.choices

    def queryset(self, request, queryset):
        if self.value() is not None:
            return queryset.filter(final=self.value())
        return queryset


class ReadOnlyAdmin(admin.ModelAdmin):
    """Derived rows: written only by the recompute and the job workers, so the admin shows them and nothing more.

    Not deleted here either: a history row, a rank or a list deleted by hand would leave the pages saying
    something the matches do not, until the next recompute. A wrong rating is corrected at its match.
    (With no action left, the lists have no column of checkboxes: a fifth of drawing a page of the history.)
    """

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(RecomputeRun)
class RecomputeRunAdmin(ReadOnlyAdmin):
    list_display = [
        "id", "category", "since", "status", "reason", "requested_by", "queued_at", "started_at", "duration",
        "computed_since", "matches_rated", "entries_written",
    ]  # fmt: skip
    list_filter = ["status", "category"]
    list_select_related = ["category", "requested_by"]
    search_fields = ["reason", "error"]
    date_hierarchy = "queued_at"


@admin.register(RatingEntry)
class RatingEntryAdmin(ParticipantSearch, ReadOnlyAdmin):
    """Searched by the player's or team's name or number (ParticipantSearch), through the history's participant
    index; an event's rows are on its page, with their changes."""

    list_display = [
        "seq", "category", "event_date", "event", "round", "participant", "opponent", "rating_before",
        "rating_after", "opponent_rating", "expected", "k", "k_reason", "matches", "provisional",
    ]  # fmt: skip
    list_filter = ["category", "provisional"]
    list_select_related = ["category", "event"]
    search_fields = ["participant__player__membership_number", "participant__player__name"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator  # two million rows at a million matches: counted, 70-160 ms a page
    # The rows written last first, along each partition's key index: the model's order (category, seq), with
    # the admin's tie-break on the key after it, sorted every row of every list (2 s at a million matches).
    ordering = ["-pk"]

    def get_queryset(self, request):
        """Both sides with their player or team read for the rows shown, two queries of a page's ids: joined to
        every row a search finds, PostgreSQL joined all of them before keeping a page (2,549 rows for a whole
        name at ten million matches: 35 ms, where the page's rows are found and sorted in 5)."""
        sides = Participant.objects.select_related("player", "team")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("participant", queryset=sides), Prefetch("opponent", queryset=sides))
        )

    def get_ordering(self, request):
        if request.GET.get(SEARCH_VAR):
            # The same order, but the rows found first and sorted after: walking the key index, PostgreSQL
            # checked row after row for the few a search finds (0.35-0.85 s).
            return [OrderBy(F("pk") + 0, descending=True)]
        return super().get_ordering(request)


@admin.register(EventScore)
class EventScoreAdmin(ReadOnlyAdmin):
    list_display = ["event_date", "event", "participant", "points", "vp", "gw", "final", "players", "coefficient"]
    list_filter = ["category", FinalFilter]
    list_select_related = ["event", "participant__player"]
    search_fields = ["participant__player__membership_number", "participant__player__name", "event__name"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator


@admin.register(CurrentRating)
class CurrentRatingAdmin(ReadOnlyAdmin):
    list_display = [
        "category", "world_rank", "display_id", "name", "country", "region", "rating", "matches", "ranked",
        "provisional", "last_played", "built_on",
    ]  # fmt: skip
    list_filter = ["category", "ranked", "provisional", ListedContinentFilter]
    list_select_related = ["category"]
    search_fields = ["display_id", "name"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    # The rows written last first, along each list's key index, as the rating history: after a recompute from a
    # date, those it rewrote. The model's order, joined with the categories to sort by their position, sorted
    # every list (290 ms at a million matches); even by the category's id, the first list (47 ms, and 450 ms
    # at ten million).
    ordering = ["-pk"]


@admin.register(CurrentRank)
class CurrentRankAdmin(ParticipantSearch, ReadOnlyAdmin):
    list_display = [
        "category", "participant", "world_rank", "continent", "continent_rank", "country", "country_rank", "region",
        "region_rank",
    ]  # fmt: skip
    list_filter = ["category", ListedContinentFilter]
    search_fields = ["participant__player__membership_number", "participant__player__name"]
    list_select_related = ["category", "participant__player", "participant__team"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator


class SnapshotAdmin(ReadOnlyAdmin):
    """Past dates' lists, written and deleted by the ranking pages (ratings.snapshots): shown, never edited."""


@admin.register(RankingSnapshot)
class RankingSnapshotAdmin(SnapshotAdmin):
    list_display = ["id", "category", "as_of", "history_version", "built_on"]
    list_filter = ["category", "built_on"]
    list_select_related = ["category"]


@admin.register(SnapshotRating)
class SnapshotRatingAdmin(SnapshotAdmin):
    list_display = [
        "snapshot", "world_rank", "display_id", "name", "country", "region", "rating", "matches", "ranked",
        "world_position",
    ]  # fmt: skip
    list_filter = ["ranked", ListedContinentFilter]
    search_fields = ["display_id", "name"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator


@admin.register(OfficialList)
class OfficialListAdmin(ReadOnlyAdmin):
    """Published by the job workers (ratings.services.official) and kept as published: never changed or deleted
    here, or the archive would say something other than what was published."""

    list_display = ["category", "as_of", "ranked", "published_at"]
    list_filter = ["category"]
    list_select_related = ["category"]
    date_hierarchy = "as_of"
