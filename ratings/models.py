from django.db import models


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
    def format_list(self) -> list[str]:
        return self.formats.split()

    @property
    def component_list(self) -> list[str]:
        return self.components.split()
