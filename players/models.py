from django.conf import settings
from django.contrib.postgres.indexes import OpClass
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Concat
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django_countries.fields import CountryField

from lib.indexes import PostgresOnlyGinIndex, trigram_search_index
from players import geography
from players.names import validate_name
from players.search import name_folded_field

MEMBERSHIP_NUMBER_PATTERN = r"^[A-Za-z0-9-]{1,32}$"
membership_number_validator = RegexValidator(
    MEMBERSHIP_NUMBER_PATTERN, gettext_lazy("1 to 32 characters: letters, digits and hyphens.")
)


class Participant(models.Model):
    """One side of a match: a player, or a team in a team event.

    Players and teams share this id space so that matches, standings and
    rating histories need one column for "who", whatever the event type.
    """

    class Kind(models.TextChoices):
        PLAYER = "player", "Player"
        TEAM = "team", "Team"

    kind = models.CharField(max_length=6, choices=Kind.choices)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=["player", "team"]), name="participant_kind_valid"),
        ]

    def __str__(self):
        entity = getattr(self, self.kind, None)
        return str(entity) if entity else f"{self.kind} #{self.pk}"


class PlayerQuerySet(models.QuerySet):
    def public(self):
        """Players the public pages and the API show: not those only an organizer's draft names yet."""
        return self.filter(public=True)

    def in_continent(self, continent: str):
        return self.filter(country__in=geography.countries_in(continent))


class Player(models.Model):
    participant = models.OneToOneField(Participant, on_delete=models.PROTECT, related_name="player")
    membership_number = models.CharField(
        "membership number", max_length=32, unique=True, validators=[membership_number_validator]
    )
    name = models.CharField(max_length=200, validators=[validate_name])
    # The name as searches compare it (players.search), kept by the database: a search's candidates are
    # compared as stored, not folded again one by one (4,000 "daniel"s folded cost 8 ms; a search of one or
    # two letters, which trigrams cannot narrow, folded every player: 70 ms at 100,000 players).
    name_folded = name_folded_field("name")
    country = CountryField(blank=True, db_index=True)
    region = models.CharField(max_length=6, blank=True, db_index=True, help_text="ISO 3166-2 code, e.g. DE-BY.")
    # A player an organizer registers with a draft's results is theirs alone until the event is submitted
    # (then public), and goes with the draft when it is deleted and nothing else names them.
    public = models.BooleanField(
        default=True, db_default=True, help_text="Shown on the site; off while only an organizer's draft names them."
    )

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = ["name", "membership_number"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(region="") | models.Q(region__startswith=Concat("country", models.Value("-"))),
                name="player_region_in_country",
                violation_error_message=gettext_lazy("The region must be a subdivision of the player's country."),
            ),
        ]
        indexes = [
            # The player search (players.selectors.player_search, and the API's): a prefix of the membership
            # number in any case, and the words of a name folded (players.search). On PostgreSQL only
            # (migrations 0002, 0004 and 0005).
            trigram_search_index("name", "membership_number", name="player_search_trgm"),
            PostgresOnlyGinIndex(OpClass("name_folded", name="gin_trgm_ops"), name="player_name_folded_trgm"),
            # The players in their order (Meta.ordering): the player list without a search and the admin's
            # read their first page along it instead of sorting every player (32-40 ms at 100,000 players).
            models.Index(fields=["name", "membership_number"], name="player_by_name"),
        ]

    def __str__(self):
        return f"{self.name} ({self.membership_number})"

    def get_absolute_url(self):
        return reverse("players:detail", args=[self.membership_number])

    @property
    def continent(self) -> str:
        return geography.continent_of(self.country.code or "")

    @property
    def continent_name(self) -> str:
        return geography.CONTINENT_NAMES.get(self.continent, "")


def team_label(name: str, member_key: str) -> str:
    """A team as pages name it: its name, or its members' numbers when it has none."""
    return name or member_key.replace(" ", " / ")


def team_member_key(membership_numbers) -> str:
    """A team is its set of members: the same set is the same team (SPEC 1)."""
    return " ".join(sorted(membership_numbers))


class Team(models.Model):
    participant = models.OneToOneField(Participant, on_delete=models.PROTECT, related_name="team")
    name = models.CharField(max_length=200, blank=True, validators=[validate_name])
    members = models.ManyToManyField(Player, related_name="teams")
    member_key = models.CharField(
        max_length=200, unique=True, editable=False, help_text="The members' membership numbers, sorted."
    )

    class Meta:
        ordering = ["name", "member_key"]
        indexes = [
            # The admin's searches of a player or team by any part of a name or number (players.selectors.
            # participants_containing): read whole, the 9,700 teams of a ten-million-match world took 4 ms of
            # every search. On PostgreSQL only (migration 0009).
            trigram_search_index("name", "member_key", name="team_search_trgm"),
        ]

    def __str__(self):
        return team_label(self.name, self.member_key)

    def get_absolute_url(self):
        return reverse("players:team", args=[self.participant_id])


class SuspensionQuerySet(models.QuerySet):
    def on(self, day):
        """The suspensions in force on `day` (from its first day to its last, both included)."""
        return self.filter(starts_on__lte=day).filter(models.Q(ends_on__isnull=True) | models.Q(ends_on__gte=day))


class Suspension(models.Model):
    """A player left out of the rankings for a period (SPEC 4; DCI practice), with the reason.

    While suspended the player keeps their rating and history: their rows
    stay in the lists but are not ranked, at any level, on any day of the
    period (today's lists and past dates alike). Admins set it in the admin
    site; the player's page and the correction log show it.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="suspensions")
    starts_on = models.DateField("from")
    ends_on = models.DateField("until", null=True, blank=True, help_text="The last day; empty: until lifted.")
    reason = models.TextField(max_length=1000)
    suspended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    objects = SuspensionQuerySet.as_manager()

    class Meta:
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_on__isnull=True) | models.Q(ends_on__gte=models.F("starts_on")),
                name="suspension_ends_after_it_starts",
                violation_error_message="A suspension ends on its first day or later.",
            ),
        ]

    def __str__(self):
        return f"{self.player}: suspended from {self.starts_on} until {self.ends_on or 'lifted'}"
