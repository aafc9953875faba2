"""The best few of every category's list today, for the home page and the rankings index."""

from dataclasses import dataclass
from datetime import date

from django.db import connection

from ratings.models import Category, CurrentRating
from ratings.selectors.places import country_name, flag_url
from ratings.selectors.rankings import BEST_FIRST


@dataclass(frozen=True, slots=True)
class Leader:
    category_id: int
    rank: int
    participant_id: int
    display_id: str
    name: str
    country: str
    rating: float
    provisional: bool
    is_team: bool = False

    @property
    def url(self) -> str:
        return f"/teams/{self.participant_id}/" if self.is_team else f"/players/{self.display_id}/"

    @property
    def flag(self) -> str:
        return flag_url(self.country)

    @property
    def country_name(self) -> str:
        return country_name(self.country)


# Leader's fields as the list's rows name them (the rank is the world rank), and the day the list was built.
_LEADER_FIELDS = ("category_id", "world_rank", "participant_id", "display_id", "name", "country", "rating",
                  "provisional", "built_on")  # fmt: skip


def category_leaders(*, categories: list[Category], limit: int) -> dict[int, list[Leader]]:
    """category id -> its `limit` best ranked participants today, for all categories in one query.

    One index-ordered LIMIT per category joined with UNION ALL, so each
    category costs a few index reads however long its list. A list built
    before today is shown as it is: the job workers rebuild it just after midnight.
    """
    if not categories:
        return {}
    rows = _leader_rows(categories, limit)
    teams = {category.pk for category in categories if category.team_size > 1}
    leaders: dict[int, list[Leader]] = {category.pk: [] for category in categories}
    for *fields, _built_on in rows:
        leaders[fields[0]].append(Leader(*fields, is_team=fields[0] in teams))
    for members in leaders.values():
        members.sort(key=lambda leader: (leader.rank, leader.name, leader.display_id))
    return leaders


def _leader_rows(categories: list[Category], limit: int) -> list[tuple]:
    parts, params = [], []
    for number, category in enumerate(categories):
        best = (
            CurrentRating.objects.filter(category=category, ranked=True)
            .order_by(*BEST_FIRST)
            .values_list(*_LEADER_FIELDS)[:limit]
        )
        sql, part_params = best.query.sql_with_params()
        # Wrapped: SQLite refuses ORDER BY and LIMIT directly inside a UNION.
        parts.append(f"SELECT * FROM ({sql}) AS leaders_{number}")
        params.extend(part_params)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        return [(*row[:-1], _as_date(row[-1])) for row in cursor.fetchall()]


def _as_date(value) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) else value
