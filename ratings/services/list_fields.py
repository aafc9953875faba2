"""The columns of today's lists (CurrentRating) and their ranks (CurrentRank), as the list services write them."""

from ratings.models import CurrentRating

CURRENT_FIELDS = [
    "category", "participant", "display_id", "name", "country", "continent", "region", "rating", "matches", "ranked",
    "provisional", "last_played", "world_rank", "continent_rank", "country_rank", "region_rank",
    "previous_rating", "previous_ranked", "previous_world_rank", "previous_continent_rank", "previous_country_rank",
    "previous_region_rank", "built_on",
]  # fmt: skip

# Today's ranks as CurrentRank rows hold them, and where list rows (CURRENT_FIELDS) hold the same values.
RANK_FIELDS = [
    "category", "participant", "continent", "country", "region", "world_rank", "continent_rank", "country_rank",
    "region_rank",
]  # fmt: skip
RANK_FIELDS_AT = [CURRENT_FIELDS.index(name) for name in RANK_FIELDS]
# A fifth of each page of the list left free: a correction's moved ranks then mostly stay in their page.
LIST_FILLFACTOR = 80


def list_column(name: str) -> str:
    """The database column of a CurrentRating field."""
    return CurrentRating._meta.get_field(name).column
