from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django_countries.fields import CountryField

from lib.indexes import trigram_search_index
from lib.skip_scans import years_along_index
from players.models import Participant


class KValue(models.IntegerChoices):
    """Event K-values and what they are used for (SPEC 3.1)."""

    CASUAL = 8, _("8: casual (e.g. Friday Night Magic)")
    DEFAULT = 16, _("16: default for every event")
    ENHANCED = 24, _("24: enhanced")
    QUALIFIER = 32, _("32: qualifier (e.g. Pro Tour Qualifier)")
    PREMIER = 40, _("40: premier (e.g. Grand Prix, National Championship)")
    PRO = 48, _("48: Pro Tour, World Championship")


class Structure(models.TextChoices):
    SWISS = "swiss", _("Swiss")
    SINGLE_ELIMINATION = "single-elimination", _("Single elimination")
    SWISS_TOP_8 = "swiss-top8", _("Swiss + top 8")


class VeknLevel(models.TextChoices):
    NONE = "", _("Regular event")
    NATIONAL = "national", _("National championship")
    CONTINENTAL_QUALIFIER = "continental-qualifier", _("Continental championship qualifier")
    CONTINENTAL = "continental", _("Continental championship")


class EventStatus(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("event status", "Draft")
    SUBMITTED = "submitted", pgettext_lazy("event status", "Submitted")
    RATED = "rated", pgettext_lazy("event status", "Rated")


TEAM_SIZES = (1, 3)


class EventQuerySet(models.QuerySet):
    def chronological(self):
        """The order matches are rated in: date, then the order events were recorded (SPEC 3)."""
        return self.order_by("date", "id")

    def rated(self):
        return self.filter(status=EventStatus.RATED)

    def public(self):
        """Events everyone may see: a draft is its organizer's until it is submitted."""
        return self.filter(status__in=(EventStatus.SUBMITTED, EventStatus.RATED))

    def dates(self, field_name, kind, order="ASC"):
        """As QuerySet.dates(), but the years of events' dates (the event list's filter, the admin's date
        hierarchy) are a list read along the date's index, a probe a year, rather than a DISTINCT of every event."""
        if field_name == "date" and kind == "year":
            years = years_along_index(self, "date")
            return years if order == "ASC" else years[::-1]
        return super().dates(field_name, kind, order)


class Event(models.Model):
    code = models.CharField(
        max_length=64,
        unique=True,
        null=True,
        blank=True,
        help_text="The event's id in imported bundles; re-imports match events by it.",
    )
    name = models.CharField(max_length=200)
    date = models.DateField()
    format = models.CharField(max_length=40, db_index=True)
    team_size = models.PositiveSmallIntegerField(default=1, choices=[(1, _("Individual")), (3, _("Teams of 3"))])
    k = models.PositiveSmallIntegerField(_("K-value"), choices=KValue.choices, default=KValue.DEFAULT)
    player_count = models.PositiveIntegerField(_("number of players"))
    level2_judge = models.BooleanField(_("Level II judge present"), default=False)
    structure = models.CharField(max_length=20, choices=Structure.choices, default=Structure.SWISS)
    country = CountryField(blank=True)
    city = models.CharField(max_length=100, blank=True)
    level = models.CharField(_("V:EKN level"), max_length=24, choices=VeknLevel.choices, blank=True, default="")
    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="organized_events"
    )
    status = models.CharField(max_length=10, choices=EventStatus.choices, default=EventStatus.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "-id"]
        indexes = [
            models.Index(fields=["date", "id"], name="event_chronological"),
            # The admin's searches of events and of their matches by an event's name, code or city (icontains):
            # without it every event was read, 52 ms of each search at ten million matches.
            trigram_search_index("name", "code", "city", name="event_search_trgm"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(k__in=KValue.values), name="event_k_valid"),
            models.CheckConstraint(condition=models.Q(team_size__in=TEAM_SIZES), name="event_team_size_valid"),
            models.CheckConstraint(condition=models.Q(level__in=VeknLevel.values), name="event_level_valid"),
            models.CheckConstraint(condition=models.Q(structure__in=Structure.values), name="event_structure_valid"),
            models.CheckConstraint(condition=models.Q(status__in=EventStatus.values), name="event_status_valid"),
        ]

    def __str__(self):
        return f"{self.name} ({self.date:%Y-%m-%d})"

    def get_absolute_url(self):
        return reverse("events:detail", args=[self.pk])


class MatchResult(models.TextChoices):
    WIN = "win", "Win for player 1"
    LOSS = "loss", "Win for player 2"
    DRAW = "draw", "Draw"
    BYE = "bye", "Bye"


def match_result(games1: int, games2: int, *, bye: bool = False) -> MatchResult:
    """Floor rules: more game wins wins the match; equal game wins is a draw (SPEC 1)."""
    if bye:
        return MatchResult.BYE
    if games1 > games2:
        return MatchResult.WIN
    if games1 < games2:
        return MatchResult.LOSS
    return MatchResult.DRAW


class Match(models.Model):
    # No index of its own: the first seat key below starts with the event and answers its lookups.
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="matches", db_index=False)
    round = models.PositiveSmallIntegerField()
    participant1 = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="+")
    # No index of its own either: the second seat key starts with it (a million matches' import built both,
    # 0.3 s more on its way to the commit, and every match written kept both).
    participant2 = models.ForeignKey(
        Participant,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Empty for a bye.",
        db_index=False,
    )
    games1 = models.PositiveSmallIntegerField("games won by participant 1", default=0)
    games2 = models.PositiveSmallIntegerField("games won by participant 2", default=0)
    draws = models.PositiveSmallIntegerField("games drawn", default=0)
    elimination = models.BooleanField("elimination round", default=False)

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["event", "round", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(round__gte=1), name="match_round_positive"),
            models.CheckConstraint(
                condition=~models.Q(participant1=models.F("participant2")),
                name="match_no_self_play",
                violation_error_message="Nobody plays themselves.",
            ),
            models.UniqueConstraint(
                fields=["event", "round", "participant1"],
                name="match_one_per_participant1_per_round",
                violation_error_message="A participant plays at most one match per round.",
            ),
            # Led by the participant, so that it answers a participant's lookups (the columns' order does not
            # change what it forbids).
            models.UniqueConstraint(
                fields=["participant2", "event", "round"],
                name="match_one_per_participant2_per_round",
                violation_error_message="A participant plays at most one match per round.",
            ),
            models.CheckConstraint(
                condition=models.Q(elimination=False)
                | models.Q(participant2__isnull=True)
                | ~models.Q(games1=models.F("games2")),
                name="match_elimination_not_drawn",
                violation_error_message="An elimination-round match cannot be a draw.",
            ),
        ]

    def __str__(self):
        return f"{self.event} round {self.round}: {self.participant1} vs {self.participant2 or 'bye'}"

    @property
    def is_bye(self) -> bool:
        return self.participant2_id is None

    @property
    def result(self) -> MatchResult:
        return match_result(self.games1, self.games2, bye=self.is_bye)


class FinalPlacing(models.TextChoices):
    NONE = "", _("Not a finalist")
    WINNER = "winner", _("Winner")
    FINALIST = "finalist", _("Finalist")


class Standing(models.Model):
    # No index of its own: standing_one_per_participant starts with the event and answers its lookups.
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="standings", db_index=False)
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="standings")
    rank = models.PositiveIntegerField()
    vp = models.DecimalField(_("victory points"), max_digits=6, decimal_places=1, default=0)
    gw = models.PositiveSmallIntegerField(_("game wins"), default=0)
    final = models.CharField(max_length=8, choices=FinalPlacing.choices, blank=True, default="")

    class Meta:
        ordering = ["event", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["event", "participant"], name="standing_one_per_participant"),
            models.CheckConstraint(condition=models.Q(rank__gte=1), name="standing_rank_positive"),
            models.CheckConstraint(condition=models.Q(vp__gte=0), name="standing_vp_not_negative"),
            models.CheckConstraint(condition=models.Q(final__in=FinalPlacing.values), name="standing_final_valid"),
        ]

    def __str__(self):
        return f"{self.event}: #{self.rank} {self.participant}"
