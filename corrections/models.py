"""Appeals of misreported matches and the corrections applied to matches (SPEC 5).

A correction is an audit record: it keeps who, when, the old and the new
result and why, together with what the match was (event, round, pairing), so
the record stays readable after the match or its event is removed.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django_countries.fields import CountryField

from players.formatting import games_shown


def result_text(name1: str, name2: str, games1: int, games2: int, draws: int) -> str:
    """A result readable from either side: "Alice won 2–1", "drawn 1–1"."""
    if games1 > games2:
        return _("%(name)s won %(games)s") % {"name": name1, "games": games_shown(games1, games2, draws)}
    if games2 > games1:
        return _("%(name)s won %(games)s") % {"name": name2, "games": games_shown(games2, games1, draws)}
    return _("drawn %(games)s") % {"games": games_shown(games1, games2, draws)}


def participant_name(participant) -> str:
    """A player's or team's name (with participant1__player and participant1__team selected: no query)."""
    if participant is None:
        return "bye"
    entity = getattr(participant, participant.kind, None)
    return (entity.name or str(entity)) if entity else f"#{participant.pk}"


class CorrectionKind(models.TextChoices):
    RESULT = "result", gettext_lazy("Result corrected")
    REMOVAL = "removal", gettext_lazy("Match removed")
    ADDITION = "addition", gettext_lazy("Match added")


class CorrectionSource(models.TextChoices):
    APPEAL = "appeal", gettext_lazy("Appeal")
    ADMIN = "admin", pgettext_lazy("correction source", "Admin")
    IMPORT = "import", gettext_lazy("Re-import")


class CorrectionQuerySet(models.QuerySet):
    def with_names(self):
        return self.select_related(
            "corrected_by", "participant1__player", "participant1__team", "participant2__player", "participant2__team"
        )


class Correction(models.Model):
    kind = models.CharField(max_length=8, choices=CorrectionKind.choices)
    source = models.CharField(max_length=8, choices=CorrectionSource.choices)
    match = models.ForeignKey(
        "events.Match",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="corrections",
        help_text="Empty once the match is removed.",
    )
    # What the match was, kept for the record when the match or its event is removed.
    event = models.ForeignKey(
        "events.Event", null=True, blank=True, on_delete=models.SET_NULL, related_name="corrections"
    )
    event_name = models.CharField(max_length=200)
    event_date = models.DateField(db_index=True)
    event_format = models.CharField(max_length=40)
    event_team_size = models.PositiveSmallIntegerField(default=1)
    round = models.PositiveSmallIntegerField()
    participant1 = models.ForeignKey("players.Participant", on_delete=models.PROTECT, related_name="+")
    participant2 = models.ForeignKey(
        "players.Participant", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The result before (empty for an addition) and after (empty for a removal), participant 1's games first.
    old_games1 = models.PositiveSmallIntegerField(null=True, blank=True)
    old_games2 = models.PositiveSmallIntegerField(null=True, blank=True)
    old_draws = models.PositiveSmallIntegerField(null=True, blank=True)
    old_elimination = models.BooleanField(null=True, blank=True)
    new_games1 = models.PositiveSmallIntegerField(null=True, blank=True)
    new_games2 = models.PositiveSmallIntegerField(null=True, blank=True)
    new_draws = models.PositiveSmallIntegerField(null=True, blank=True)
    new_elimination = models.BooleanField(null=True, blank=True)
    reason = models.TextField()
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    corrected_at = models.DateTimeField(default=timezone.now, db_index=True)
    appeal = models.OneToOneField(
        "corrections.Appeal", null=True, blank=True, on_delete=models.SET_NULL, related_name="correction"
    )

    objects = CorrectionQuerySet.as_manager()

    class Meta:
        ordering = ["-corrected_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=CorrectionKind.values), name="correction_kind_valid"),
            models.CheckConstraint(condition=Q(source__in=CorrectionSource.values), name="correction_source_valid"),
            models.CheckConstraint(condition=~Q(reason=""), name="correction_has_a_reason"),
            models.CheckConstraint(
                condition=Q(kind=CorrectionKind.RESULT, old_games1__isnull=False, new_games1__isnull=False)
                | Q(kind=CorrectionKind.REMOVAL, old_games1__isnull=False, new_games1__isnull=True)
                | Q(kind=CorrectionKind.ADDITION, old_games1__isnull=True, new_games1__isnull=False),
                name="correction_results_fit_kind",
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.event_name}, round {self.round}"

    def get_absolute_url(self):
        return reverse("corrections:detail", args=[self.pk])

    @property
    def name1(self) -> str:
        return participant_name(self.participant1)

    @property
    def name2(self) -> str:
        return _("bye") if self.participant2_id is None else participant_name(self.participant2)

    @property
    def pairing(self) -> str:
        return f"{self.name1} vs {self.name2}"

    @property
    def old_result(self) -> str:
        if self.old_games1 is None:
            return _("not recorded")
        return result_text(self.name1, self.name2, self.old_games1, self.old_games2, self.old_draws)

    @property
    def new_result(self) -> str:
        if self.new_games1 is None:
            return _("removed")
        return result_text(self.name1, self.name2, self.new_games1, self.new_games2, self.new_draws)

    @property
    def corrected_by_name(self) -> str:
        if self.corrected_by is not None:
            return self.corrected_by.get_username()
        return _("the results import") if self.source == CorrectionSource.IMPORT else _("an admin")


class AppealStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("appeal status", "Open")
    ACCEPTED = "accepted", gettext_lazy("Accepted")
    REJECTED = "rejected", gettext_lazy("Rejected")


class AppealQuerySet(models.QuerySet):
    def open(self):
        return self.filter(status=AppealStatus.OPEN)

    def with_match(self):
        return self.select_related(
            "player",
            "filed_by",
            "decided_by",
            "match__event",
            "match__participant1__player",
            "match__participant1__team",
            "match__participant2__player",
            "match__participant2__team",
        )


class Appeal(models.Model):
    """A player's claim that a match in their history was misreported, and an admin's decision on it."""

    match = models.ForeignKey(
        "events.Match",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="appeals",
        help_text="Empty once the match is removed.",
    )
    match_label = models.CharField(max_length=300, help_text="The match as it was when appealed.")
    player = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="appeals")
    filed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="appeals"
    )
    side = models.PositiveSmallIntegerField(help_text="1 or 2: the appellant's side of the match.")
    # Participant 1's games first, as the match stores them.
    reported_games1 = models.PositiveSmallIntegerField()
    reported_games2 = models.PositiveSmallIntegerField()
    reported_draws = models.PositiveSmallIntegerField()
    claimed_games1 = models.PositiveSmallIntegerField()
    claimed_games2 = models.PositiveSmallIntegerField()
    claimed_draws = models.PositiveSmallIntegerField()
    explanation = models.TextField()
    status = models.CharField(max_length=8, choices=AppealStatus.choices, default=AppealStatus.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    objects = AppealQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "created_at"], name="appeal_queue"),
            models.Index(fields=["filed_by", "created_at"], name="appeal_by_user"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "player"],
                condition=Q(status=AppealStatus.OPEN),
                name="appeal_one_open_per_match_and_player",
                violation_error_message="You already have an open appeal for this match.",
            ),
            models.CheckConstraint(condition=Q(status__in=AppealStatus.values), name="appeal_status_valid"),
            models.CheckConstraint(condition=Q(side__in=(1, 2)), name="appeal_side_valid"),
            models.CheckConstraint(condition=~Q(explanation=""), name="appeal_has_an_explanation"),
            models.CheckConstraint(
                condition=Q(status=AppealStatus.OPEN, decided_at__isnull=True)
                | (~Q(status=AppealStatus.OPEN) & Q(decided_at__isnull=False) & ~Q(decision_reason="")),
                name="appeal_decided_with_a_reason",
            ),
        ]

    def __str__(self):
        return f"Appeal #{self.pk} by {self.player}: {self.match_label}"

    def _from_side(self, games1: int, games2: int, draws: int) -> str:
        """A result from the appellant's side: "won 2–1", "lost 0–2", "drew 1–1"."""
        own, other = (games1, games2) if self.side == 1 else (games2, games1)
        games = games_shown(own, other, draws)
        if own > other:
            return _("won %(games)s") % {"games": games}
        return (_("lost %(games)s") if own < other else _("drew %(games)s")) % {"games": games}

    @property
    def reported_result(self) -> str:
        return self._from_side(self.reported_games1, self.reported_games2, self.reported_draws)

    @property
    def claimed_result(self) -> str:
        return self._from_side(self.claimed_games1, self.claimed_games2, self.claimed_draws)

    @property
    def is_open(self) -> bool:
        return self.status == AppealStatus.OPEN


class DetailRequest(models.Model):
    """A player's request to correct their own name, country or region, and an admin's decision on it.

    Filed from the account page by a player whose account is linked to them;
    decided in the admins' queue beside the appeals and claims. What the
    details were when the request was filed stays with it, so the record shows
    the old and the new values whatever happens later.
    """

    player = models.ForeignKey("players.Player", on_delete=models.CASCADE, related_name="detail_requests")
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="detail_requests")
    name = models.CharField(max_length=200)
    country = CountryField(blank=True)
    region = models.CharField(max_length=6, blank=True)
    old_name = models.CharField(max_length=200)
    old_country = models.CharField(max_length=2, blank=True)
    old_region = models.CharField(max_length=6, blank=True)
    explanation = models.TextField(max_length=1000)
    status = models.CharField(max_length=8, choices=AppealStatus.choices, default=AppealStatus.OPEN)
    filed_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(max_length=1000, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player"], condition=Q(status="open"), name="detail_request_open_once"),
        ]
        indexes = [models.Index(fields=["status", "filed_at"], name="detail_request_queue")]

    def __str__(self):
        return f"{self.player}: {self.old_name} → {self.name} ({self.get_status_display()})"

    @property
    def is_open(self) -> bool:
        return self.status == AppealStatus.OPEN

    @property
    def changes(self) -> list[tuple[str, str, str]]:
        """(what, was, asked for) for each detail the request changes."""
        pairs = [
            (_("Name"), self.old_name, self.name),
            (_("Country"), self.old_country, self.country.code or ""),
            (_("Region"), self.old_region, self.region),
        ]
        return [(what, old, new) for what, old, new in pairs if old != new]


class PlayerMerge(models.Model):
    """Two membership numbers found to be one person (SPEC 5): the matches of the number given up moved to the one
    kept, whose lists were recomputed from the earliest of them, as for a correction.

    The player given up stays as a hidden row (not public) so that its number's page redirects to the one kept
    and this record can name it; nothing else refers to it any more.
    """

    kept = models.ForeignKey("players.Player", on_delete=models.PROTECT, related_name="merges_kept")
    merged = models.OneToOneField("players.Player", on_delete=models.PROTECT, related_name="merged_into")
    merged_number = models.CharField(max_length=32)
    merged_name = models.CharField(max_length=200)
    reason = models.TextField(max_length=1000)
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    merged_at = models.DateTimeField(default=timezone.now)
    matches_moved = models.PositiveIntegerField(default=0)
    standings_moved = models.PositiveIntegerField(default=0)
    since = models.DateField(null=True, blank=True, help_text="The earliest event moved: lists recomputed from it.")

    class Meta:
        ordering = ["-merged_at", "-pk"]

    def __str__(self):
        return f"{self.merged_name} ({self.merged_number}) merged into {self.kept}"
