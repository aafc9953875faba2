from django.conf import settings
from django.contrib.postgres.indexes import OpClass
from django.db import models
from django.db.models import F
from django.db.models.functions import Upper
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from lib.fields import BytewiseCharField
from lib.indexes import PostgresOnlyGinIndex
from players.search import name_folded_field


class Ruleset(models.TextChoices):
    DCI_2001 = "dci-2001", "DCI 2001 (Elo, event K)"
    DCI_1997 = "dci-1997", "DCI 1997 (provisional, rating-band K)"
    MATCH_POINTS = "match-points", "Match points (S = match points / 3)"
    VEKN = "vekn", "V:EKN rating points"
    DERIVED = "derived", "Derived (mean of component categories)"


class DisplayRounding(models.TextChoices):
    TRUNCATE = "truncate", "Truncate (cut decimals off)"
    ROUND = "round", "Round to the nearest integer"


# What a ruleset implies when a category does not say otherwise (SPEC 3).
_ELO = {"provisional_until": 0, "inactivity_months": None, "window_months": None, "best_of": None}
RULESET_DEFAULTS = {
    Ruleset.DCI_2001: {**_ELO, "ranked_after": 10, "display_rounding": DisplayRounding.TRUNCATE},
    Ruleset.DCI_1997: {
        **_ELO,
        "ranked_after": 25,
        "provisional_until": 25,
        "display_rounding": DisplayRounding.TRUNCATE,
    },
    Ruleset.MATCH_POINTS: {**_ELO, "ranked_after": 16, "display_rounding": DisplayRounding.ROUND},
    Ruleset.VEKN: {
        "ranked_after": 1,
        "provisional_until": 0,
        "display_rounding": DisplayRounding.ROUND,
        "inactivity_months": 12,
        "window_months": 18,
        "best_of": 8,
    },
    Ruleset.DERIVED: {**_ELO, "ranked_after": 10, "display_rounding": DisplayRounding.TRUNCATE},
}


class CategoryQuerySet(models.QuerySet):
    def rating(self, *, format: str, team_size: int):
        """Categories that rate events of this format and team size (there may be several)."""
        return [
            category
            for category in self.filter(team_size=team_size).exclude(ruleset=Ruleset.DERIVED)
            if format in category.format_list
        ]


# The names the default lists are created with (migration 0002), for the catalogs: Category.label.
DEFAULT_LIST_NAMES = (
    gettext_noop("Constructed"),
    gettext_noop("Limited"),
    gettext_noop("Vintage"),
    gettext_noop("Composite"),
    gettext_noop("Team Constructed"),
    gettext_noop("Team Limited"),
    gettext_noop("V:TES"),
)


class Category(models.Model):
    """A rating list: which formats feed it and by which rules (SPEC 2)."""

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    ruleset = models.CharField(max_length=16, choices=Ruleset.choices)
    formats = models.CharField(max_length=500, blank=True, help_text="Space-separated format names.")
    components = models.CharField(
        max_length=200, blank=True, help_text="Derived categories: space-separated slugs averaged."
    )
    team_size = models.PositiveSmallIntegerField(default=1)
    start_rating = models.FloatField(default=1600.0)
    ranked_after = models.PositiveIntegerField(
        "ranked threshold", default=10, help_text="Rated matches (events for V:EKN) needed to be ranked."
    )
    provisional_until = models.PositiveIntegerField(
        "provisional threshold", default=0, help_text="Matches rated provisionally (dci-1997); 0 for none."
    )
    display_rounding = models.CharField(max_length=8, choices=DisplayRounding.choices, default=DisplayRounding.TRUNCATE)
    inactivity_months = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Months without an event before a player leaves the rankings."
    )
    window_months = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="V:EKN: months of events that count towards the rating."
    )
    best_of = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="V:EKN: how many of the best event scores count."
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in menus and lists.")
    history_version = models.PositiveBigIntegerField(
        default=0, editable=False, help_text="Bumped by every recompute: part of the key of cached lists."
    )
    list_refreshed_on = models.DateField(
        null=True,
        blank=True,
        editable=False,
        help_text="The last day the job workers rebuilt today's list for the calendar alone (no recompute): part "
        "of the public pages' ETags, with history_version.",
    )
    # The whole history as one compressed CSV (ratings.services.downloads), rebuilt after each recompute.
    history_file = models.CharField(max_length=300, blank=True, editable=False, help_text="Its name in storage.")
    history_file_bytes = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    history_file_rows = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    history_file_version = models.PositiveBigIntegerField(
        null=True, blank=True, editable=False, help_text="The history_version it was written from."
    )
    history_file_built_at = models.DateTimeField(null=True, blank=True, editable=False)
    history_file_parts = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="Where the file's parts start, so that a recompute from a date writes only those it changed "
        "(ratings.services.downloads).",
    )
    list_edits = models.PositiveBigIntegerField(
        default=0,
        editable=False,
        help_text="Bumped when today's list changes without a recompute (a player's details corrected): part of "
        "the public pages' ETags, with history_version.",
    )

    objects = CategoryQuerySet.as_manager()

    class Meta:
        ordering = ["position", "slug"]
        verbose_name_plural = "categories"
        constraints = [
            models.CheckConstraint(condition=models.Q(team_size__gte=1), name="category_team_size_positive"),
            models.CheckConstraint(
                condition=models.Q(ruleset__in=[choice.value for choice in Ruleset]), name="category_ruleset_valid"
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def label(self) -> str:
        """The list's name in the visitor's language: the default lists' names are in the catalogs
        (DEFAULT_LIST_NAMES); a list an admin added is shown as they named it."""
        return gettext(self.name) if self.name else self.name

    @property
    def list_version(self) -> str:
        """What today's list is at, for keys of what is read from it: a recompute (history_version) or a change of
        the list alone (list_edits). The day, which also changes it, is for the key to add."""
        return f"{self.history_version}.{self.list_edits}"

    @property
    def format_list(self) -> list[str]:
        return self.formats.split()

    @property
    def component_list(self) -> list[str]:
        return self.components.split()


def _derived_reference(model, *, on_delete=models.CASCADE, **options):
    """A foreign key on rows the recompute regenerates from matches.

    No database constraint: integrity comes from the recompute itself, and
    checking millions of keys row by row would dominate its cost.
    """
    return models.ForeignKey(model, on_delete=on_delete, db_constraint=False, related_name="+", **options)


# Removing a match or an event leaves its history rows until the recompute it
# queues replaces the history from that date on: readers never see a gap.
_KEPT_UNTIL_RECOMPUTED = models.DO_NOTHING


class RatingEntry(models.Model):
    """One participant's side of one rated match in a category, with everything that explains the change."""

    category = _derived_reference(Category, db_index=False)
    seq = models.PositiveBigIntegerField(help_text="The match's position in the category's rating order.")
    # Not indexed: pages reach a match's rows through the participant index.
    match = _derived_reference("events.Match", on_delete=_KEPT_UNTIL_RECOMPUTED, db_index=False)
    event = _derived_reference("events.Event", on_delete=_KEPT_UNTIL_RECOMPUTED, db_index=False)
    event_date = models.DateField()
    round = models.PositiveSmallIntegerField()
    participant = _derived_reference("players.Participant", db_index=False)
    opponent = _derived_reference("players.Participant", db_index=False)
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    opponent_rating = models.FloatField(help_text="The opponent's rating when the match was played.")
    expected = models.FloatField("expected score")
    score = models.FloatField(help_text="1 win, 0.5 draw (1/3 in match-points), 0 loss.")
    k = models.FloatField("K", null=True, blank=True, help_text="Empty while the provisional formula applies.")
    k_reason = models.CharField("why this K", max_length=120)
    matches = models.PositiveIntegerField(help_text="Rated matches in the category, this one included.")
    provisional = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "rating entries"
        ordering = ["category", "seq"]
        # (category, participant, seq) is unique by construction: seq grows by one per match and a
        # participant is on one side of it. Checking that in the database made each recompute
        # compare every new key with the row it replaces, doubling the cost of writing history.
        #
        # No index declared, on purpose: Django's state says what the parent table has on PostgreSQL,
        # where the history is partitioned by category and is read through indexes of each partition
        # ((participant, seq) and (seq) in a category's own partition, ratings/category_tables.OWN_INDEXES;
        # led by the category in the default partition: migration 0016). SQLite's plain table has the
        # same two, rating_entry_by_participant (category, participant, seq) and rating_entry_order
        # (category, seq), from migrations 0003 and 0006, outside the state since 0017: a migration
        # that rebuilds this table on SQLite must make them again. tests/test_schema_matches_models.py
        # checks both databases.

    def __str__(self):
        return f"{self.participant_id} in {self.category_id}: {self.rating_before:.2f} -> {self.rating_after:.2f}"

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before


class EventScore(models.Model):
    """A participant's V:EKN rating points for one event (SPEC 3.4)."""

    category = _derived_reference(Category, db_index=False)
    event = _derived_reference("events.Event", on_delete=_KEPT_UNTIL_RECOMPUTED)
    event_date = models.DateField()
    participant = _derived_reference("players.Participant", db_index=False)
    points = models.FloatField()
    vp = models.DecimalField("victory points", max_digits=6, decimal_places=1)
    gw = models.PositiveSmallIntegerField("game wins")
    final = models.CharField(max_length=8, blank=True)
    players = models.PositiveIntegerField(help_text="N in the coefficient.")
    coefficient = models.FloatField()
    bonus = models.FloatField()

    class Meta:
        # By the columns, not by the categories' and the events' own orders: those join both tables (an inner
        # join, which loses the scores of an event removed until the recompute replaces them) and sort every score.
        ordering = ["category_id", "event_date", "event_id"]
        constraints = [
            models.UniqueConstraint(fields=["category", "participant", "event"], name="event_score_once_per_event"),
        ]
        indexes = [models.Index(fields=["category", "event_date"], name="event_score_by_date")]

    def __str__(self):
        return f"{self.participant_id} at {self.event_id}: {self.points:.1f}"


class RecomputeStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class RecomputeRun(models.Model):
    """A requested recompute of one category, and what became of it (shown to admins)."""

    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="recompute_runs")
    since = models.DateField(null=True, blank=True, help_text="Empty: the whole history.")
    reason = models.CharField(max_length=200)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=8, choices=RecomputeStatus.choices, default=RecomputeStatus.QUEUED)
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    computed_since = models.DateField(
        null=True, blank=True, help_text="Where the recompute actually started (runs queued together are merged)."
    )
    matches_rated = models.PositiveIntegerField(null=True, blank=True)
    entries_written = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-queued_at", "-id"]
        indexes = [models.Index(fields=["category", "status"], name="recompute_run_pending")]

    def __str__(self):
        since = f"since {self.since:%Y-%m-%d}" if self.since else "full"
        return f"{self.category} ({since}): {self.get_status_display()}"

    @property
    def duration(self):
        if self.started_at and self.finished_at:
            return self.finished_at - self.started_at
        return None


RANKED = models.Q(ranked=True)


class CurrentRating(models.Model):
    """Today's list of a category, ranks precomputed at every level, rebuilt by each recompute.

    Past dates are computed from the history when asked for; today's list is
    what most pages read, so it is kept ready with the columns they filter
    and sort on, and last month's ranks for the movement column.
    """

    category = _derived_reference(Category, db_index=False)
    participant = _derived_reference("players.Participant", db_index=False)
    display_id = BytewiseCharField(max_length=200, help_text="Membership number; for a team its members' numbers.")
    name = models.CharField(max_length=200)
    # The name as searches compare it (players.search), folded by the database as each row is written: the
    # search's trigram index then holds a column, not an expression whose every match is folded again to be
    # checked (a common first name at ten million matches: 6,225 names, 18 ms of the page), and is built
    # without folding each name (2.4 -> 1.3 s for a list of 473,000 rows).
    name_folded = name_folded_field("name")
    country = BytewiseCharField(max_length=2, blank=True)
    continent = BytewiseCharField(max_length=2, blank=True)
    region = BytewiseCharField(max_length=6, blank=True)
    rating = models.FloatField()
    matches = models.PositiveIntegerField(help_text="Rated matches; events for V:EKN.")
    ranked = models.BooleanField()
    provisional = models.BooleanField(default=False)
    last_played = models.DateField(null=True)
    world_rank = models.PositiveIntegerField(null=True)
    continent_rank = models.PositiveIntegerField(null=True)
    country_rank = models.PositiveIntegerField(null=True)
    region_rank = models.PositiveIntegerField(null=True)
    # Standing at the end of the previous month, for "movement since last month".
    previous_rating = models.FloatField(null=True)
    previous_ranked = models.BooleanField(default=False)
    previous_world_rank = models.PositiveIntegerField(null=True)
    previous_continent_rank = models.PositiveIntegerField(null=True)
    previous_country_rank = models.PositiveIntegerField(null=True)
    previous_region_rank = models.PositiveIntegerField(null=True)
    built_on = models.DateField(help_text="The day this list was computed (its 'today').")

    class Meta:
        ordering = ["category", "-ranked", "-rating", "name"]
        constraints = [
            models.UniqueConstraint(fields=["category", "participant"], name="current_rating_once"),
        ]
        indexes = [
            # To the last key of the list's order (BEST_FIRST, then the row): a deep page of the unranked list
            # finds its rows' keys in this index alone (ratings.selectors.rankings.ListRows), 12 ms instead of
            # 120 ms for page 2,067 of 4,135 at ten million matches.
            models.Index(
                fields=["category", "ranked", "-rating", "name", "display_id", "id"], name="current_world_list"
            ),
            models.Index(fields=["category", "continent", "ranked", "-rating"], name="current_continent_list"),
            models.Index(fields=["category", "country", "ranked", "-rating"], name="current_country_list"),
            models.Index(fields=["category", "region", "ranked", "-rating"], name="current_region_list"),
            models.Index(fields=["category", "display_id"], name="current_by_display_id"),
            # The world list sorted by name (the table's Player column) is read in order rather than
            # sorted whole on every page: page 2 in 0.3 ms instead of 12-40 ms at 40,000 ranked.
            models.Index(fields=["category", "ranked", "name", "display_id", "id"], name="current_world_by_name"),
            # The ranking pages' name search (ratings.selectors.rankings._search_condition): the words of a
            # folded name (players.search). On PostgreSQL only (migrations 0010, 0018, 0020, 0027, 0028, 0030);
            # each category's partition has its own copy, which ratings.category_tables builds from this
            # one's definition in the database.
            PostgresOnlyGinIndex(OpClass("name_folded", name="gin_trgm_ops"), name="current_search_trgm"),
            # The same search by the start of a membership number, in any case: a range of this index (byte
            # order, BytewiseCharField). In the trigram index beside the names it took as long to build as
            # they did (0.26 s a list of 48,000 rows, against 0.03 s); a team list's search for a number
            # anywhere in its id reads the list, as small as its teams are few.
            models.Index(F("category"), Upper("display_id"), name="current_by_number_start"),
            # The ranks are indexed in CurrentRank: none of these holds them, so PostgreSQL rewrites
            # a row whose ranks moved in place, without a new entry in each index.
        ]

    def __str__(self):
        return f"{self.name} in {self.category_id}: {self.rating:.2f}"


class CurrentRank(models.Model):
    """A ranked participant's ranks in today's list (CurrentRating), on narrow rows that carry the rank indexes.

    A page of a ranked list is read by rank (ratings.selectors.rankings.RankSeek).
    A corrected result moves the ranks of thousands of players: here each is
    a small row in five small indexes, where on the list it was a wide row in
    all of the list's indexes. The list's rows keep the same ranks for display.
    """

    category = _derived_reference(Category, db_index=False)
    participant = _derived_reference("players.Participant", db_index=False)
    continent = BytewiseCharField(max_length=2, blank=True)
    country = BytewiseCharField(max_length=2, blank=True)
    region = BytewiseCharField(max_length=6, blank=True)
    world_rank = models.PositiveIntegerField()
    # Empty where the participant has no place at that level (blank places are unranked there).
    continent_rank = models.PositiveIntegerField(null=True)
    country_rank = models.PositiveIntegerField(null=True)
    region_rank = models.PositiveIntegerField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["category", "participant"], name="current_rank_once"),
        ]
        indexes = [
            models.Index(fields=["category", "world_rank"], name="current_rank_world"),
            models.Index(fields=["category", "continent", "continent_rank"], name="current_rank_continent"),
            models.Index(fields=["category", "country", "country_rank"], name="current_rank_country"),
            models.Index(fields=["category", "region", "region_rank"], name="current_rank_region"),
        ]

    def __str__(self):
        return f"{self.participant_id} in {self.category_id}: {self.world_rank}"


class RankingSnapshot(models.Model):
    """A past date's list of a category, written when a page first asks for it (ratings.snapshots).

    Its rows hold the ranks at every level and each row's position in its
    list, so any page of a past list is a range read like today's list. It is
    only valid for its history version and the day it was built (names and
    places are that day's); the others are deleted as new ones are written.
    """

    # Not cascaded: writing a snapshot deletes those of categories that no longer exist, rows included.
    category = models.ForeignKey(
        Category, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    as_of = models.DateField()
    history_version = models.PositiveBigIntegerField()
    built_on = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["category", "as_of", "history_version", "built_on"], name="ranking_snapshot_once"
            ),
        ]

    def __str__(self):
        return f"{self.category_id} as of {self.as_of} (version {self.history_version})"


class OfficialList(models.Model):
    """A list as published at the end of a month (SPEC 4's official lists; ratings.services.official).

    It is the month end's snapshot as it stood when published, kept as
    published: a later correction recomputes the history and every past
    date, never an official list (snapshot pruning leaves these alone). Its
    movement is counted from the official list before it.
    """

    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="official_lists")
    as_of = models.DateField(help_text="The month's last day.")
    snapshot = models.OneToOneField(RankingSnapshot, on_delete=models.PROTECT, related_name="official")
    published_at = models.DateTimeField(default=timezone.now)
    ranked = models.PositiveIntegerField(help_text="How many were ranked in it.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["category", "as_of"], name="official_list_once")]
        ordering = ["category", "-as_of"]

    def __str__(self):
        return f"{self.category} official list of {self.as_of}"


class SnapshotRating(models.Model):
    """One participant's row in a past date's list: CurrentRating's columns plus positions.

    A position is the row's place (1, 2, 3, ...) in its list at that level,
    ranked and unranked lists counted apart, in the order the page shows
    (rating, name, number): page N of a list is a range of positions.
    """

    snapshot = models.ForeignKey(
        RankingSnapshot, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    participant = _derived_reference("players.Participant", db_index=False)
    display_id = BytewiseCharField(max_length=200)
    name = models.CharField(max_length=200)
    country = BytewiseCharField(max_length=2, blank=True)
    continent = BytewiseCharField(max_length=2, blank=True)
    region = BytewiseCharField(max_length=6, blank=True)
    rating = models.FloatField()
    matches = models.PositiveIntegerField()
    ranked = models.BooleanField()
    provisional = models.BooleanField(default=False)
    last_played = models.DateField(null=True)  # up to the list's date
    world_rank = models.PositiveIntegerField(null=True)
    continent_rank = models.PositiveIntegerField(null=True)
    country_rank = models.PositiveIntegerField(null=True)
    region_rank = models.PositiveIntegerField(null=True)
    world_position = models.PositiveIntegerField()
    continent_position = models.PositiveIntegerField(null=True)
    country_position = models.PositiveIntegerField(null=True)
    region_position = models.PositiveIntegerField(null=True)

    class Meta:
        indexes = [
            models.Index(fields=["snapshot", "ranked", "world_position"], name="snapshot_world_list"),
            models.Index(
                fields=["snapshot", "continent", "ranked", "continent_position"], name="snapshot_continent_list"
            ),
            models.Index(fields=["snapshot", "country", "ranked", "country_position"], name="snapshot_country_list"),
            models.Index(fields=["snapshot", "region", "ranked", "region_position"], name="snapshot_region_list"),
            models.Index(fields=["snapshot", "participant"], name="snapshot_by_participant"),
        ]

    def __str__(self):
        return f"{self.name} in snapshot {self.snapshot_id}: {self.rating:.2f}"
