from django import forms
from django.contrib import admin
from django.contrib.admin.views.main import SEARCH_VAR
from django.core.exceptions import ValidationError
from django.db import router
from django.db.models.deletion import Collector, ProtectedError
from django.urls import reverse
from django.utils.html import format_html
from django_countries.filters import CountryFilter

from lib.admin_lists import EstimatedCountPaginator, QuickActionCheckbox
from lib.admin_search import search_words
from lib.lookups import any_of
from lib.tables import country_label
from players import geography
from players.models import Participant, Player, Team, team_member_key
from players.selectors import countries_lived_in, participants_containing
from players.services import participant_entity_delete, player_create, team_create, team_member_keys_refresh
from players.validators import validate_region, validate_team_members


def _adopt(obj, created):
    """Make the admin's unsaved instance stand for the row a service created, so the admin logs and redirects to it."""
    obj.pk = created.pk
    obj.participant = created.participant
    obj._state.adding = False


class ParticipantEntityAdmin(QuickActionCheckbox, admin.ModelAdmin):
    """Players and teams: deleting one deletes its participant too, and only while nothing refers to it."""

    def deletion_blockers(self, obj) -> list[str]:
        """What protects the participant (its matches, its standings), as Django's own deletion finds it."""
        collector = Collector(using=router.db_for_write(type(obj.participant)))
        try:
            collector.collect([obj.participant])
        except ProtectedError as error:
            kinds = {type(row)._meta.verbose_name_plural for row in error.protected_objects if row != obj}
            return [f"{kind.capitalize()} of {obj}" for kind in sorted(kinds)]
        return []

    def get_deleted_objects(self, objs, request):
        deleted, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        protected = [*protected, *(blocker for obj in objs for blocker in self.deletion_blockers(obj))]
        return deleted, model_count, perms_needed, protected

    def delete_model(self, request, obj):
        participant_entity_delete(entity=obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            participant_entity_delete(entity=obj)


class UsedCountryFilter(CountryFilter):
    """The countries some player lives in (players.selectors.countries_lived_in: along the country index, not a
    DISTINCT over every player as django-countries' own filter reads them)."""

    def lookup_choices(self, changelist):
        codes = countries_lived_in()
        for code, name in self.field.get_choices(include_blank=False):
            if code in codes:
                yield code, name


class ParticipantSearch:
    """A ModelAdmin mixin for rows of a participant (`participant_lookup`): a search finds each word in the
    player's name or membership number, or the team's name or members' numbers, as `search_fields` over those
    would, but finds the participants first, through the players' trigram index, and then their rows. Searched
    across its joins, every row was read (participants at 100,000 players: 250 ms)."""

    participant_lookup = "participant_id"

    def get_search_results(self, request, queryset, search_term):
        words = search_words(search_term)
        if not words:
            return queryset, False
        found = participants_containing(words=words)
        return queryset.filter(any_of(self.participant_lookup, found)), False


class ContinentFilter(admin.SimpleListFilter):
    """The continents as the geography names them: not read from the rows (a DISTINCT over every one)."""

    title = "continent"
    parameter_name = "continent"

    def lookups(self, request, model_admin):
        return sorted(geography.CONTINENT_NAMES.items(), key=lambda item: item[1])

    def queryset(self, request, queryset):
        if self.value():
            return self.on(queryset, self.value())
        return queryset

    def on(self, queryset, continent: str):
        """The rows of `continent`: a player's is their country's."""
        return queryset.filter(country__in=geography.countries_in(continent))


class HasRegionFilter(admin.SimpleListFilter):
    title = "region known"
    parameter_name = "has_region"

    def lookups(self, request, model_admin):
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(region="")
        if self.value() == "no":
            return queryset.filter(region="")
        return queryset


@admin.register(Participant)
class ParticipantAdmin(ParticipantSearch, admin.ModelAdmin):
    """Read-only: participants are created with their player or team."""

    list_display = ["id", "kind", "entity"]
    list_filter = ["kind"]
    search_fields = ["player__membership_number", "player__name", "team__name", "team__member_key"]
    participant_lookup = "pk"
    list_select_related = ["player", "team"]
    ordering = ["kind", "player__name", "team__name", "id"]
    show_full_result_count = False
    paginator = EstimatedCountPaginator  # a million at ten million matches: counted twice, 32 ms each

    def get_ordering(self, request):
        # By name what a search or an autocomplete finds; the whole list the newest first, along the key: by
        # name it joined every player and team and sorted all of them (120 ms at 100,000 players).
        if request.GET.get(SEARCH_VAR) or request.GET.get("term"):
            return super().get_ordering(request)
        return ["-id"]

    def get_queryset(self, request):
        # Autocomplete widgets label each result with str(), which reads the player or team.
        return super().get_queryset(request).select_related("player", "team")

    @admin.display(description="player or team")
    def entity(self, participant):
        entity = getattr(participant, participant.kind, None)
        if entity is None:
            return "—"
        url = reverse(f"admin:players_{participant.kind}_change", args=[entity.pk])
        return format_html('<a href="{}">{}</a>', url, entity)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class PlayerAdminForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ["membership_number", "name", "country", "region"]

    def clean_region(self):
        return self.cleaned_data["region"].strip().upper()

    def clean(self):
        cleaned_data = super().clean()
        if "region" in cleaned_data and "country" in cleaned_data:
            try:
                validate_region(cleaned_data["region"], cleaned_data["country"])
            except ValidationError as error:
                self.add_error("region", error)
        return cleaned_data


@admin.register(Player)
class PlayerAdmin(ParticipantEntityAdmin):
    form = PlayerAdminForm
    list_display = ["membership_number", "name", "country_shown", "region_display", "continent"]
    list_display_links = ["membership_number", "name"]
    list_filter = [("country", UsedCountryFilter), ContinentFilter, HasRegionFilter]
    search_fields = ["membership_number", "name"]
    show_full_result_count = False  # a second count of every player on each filtered page
    paginator = EstimatedCountPaginator  # unfiltered, every player counted on each page (lib.admin_lists)
    readonly_fields = ["participant"]
    fields = ["membership_number", "name", "country", "region", "participant"]

    @admin.display(description="country", ordering="country")
    def country_shown(self, player):
        # The field's own display looks its name up among the 250 countries for every row: 0.14 s a page.
        return country_label(player.country)

    @admin.display(description="region", ordering="region")
    def region_display(self, player):
        return f"{player.region} ({geography.region_name(player.region)})" if player.region else ""

    @admin.display(description="continent")
    def continent(self, player):
        return player.continent_name

    def deletion_blockers(self, player) -> list[str]:
        # A team would be left short of a member, with a stale member key.
        return [*super().deletion_blockers(player), *(f"Team {team}" for team in player.teams.all())]

    def save_model(self, request, obj, form, change):
        if not change:
            _adopt(obj, player_create(**form.cleaned_data))
            return
        super().save_model(request, obj, form, change)
        if "membership_number" in form.changed_data:
            team_member_keys_refresh(player=obj)


class TeamAdminForm(forms.ModelForm):
    class Meta:
        model = Team
        fields = ["name", "members"]

    def clean_members(self):
        members = self.cleaned_data["members"]
        validate_team_members(members, team=self.instance)
        return members


@admin.register(Team)
class TeamAdmin(ParticipantEntityAdmin):
    form = TeamAdminForm
    list_display = ["team_name", "member_list", "member_key"]
    search_fields = ["name", "members__membership_number", "members__name"]
    autocomplete_fields = ["members"]
    readonly_fields = ["member_key", "participant"]
    fields = ["name", "members", "member_key", "participant"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("members")

    @admin.display(description="name", ordering="name")
    def team_name(self, team):
        return team.name or "(no name)"

    @admin.display(description="members")
    def member_list(self, team):
        return ", ".join(str(member) for member in team.members.all())

    def save_model(self, request, obj, form, change):
        members = form.cleaned_data["members"]
        if not change:
            _adopt(obj, team_create(members=members, name=obj.name))
            return
        obj.member_key = team_member_key(member.membership_number for member in members)
        super().save_model(request, obj, form, change)
