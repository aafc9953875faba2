"""The worlds and helpers the recompute tests share: the default bundle, and random swiss events written in bulk.

Both are written without asking for a recompute (the importer and bulk ORM
writes queue nothing), so that a test sees only the recomputes it asks for.
"""

import math
import random
from datetime import date, timedelta

from django.db import connection

from events.models import Event, EventStatus, Match
from organize.importer import results_import
from players.models import Participant, Player, Team
from ratings.models import Category, CurrentRating, RatingEntry, RecomputeRun, RecomputeStatus
from tests.bundles import Bundle

E1_DATE = date(2003, 5, 1)
E2_DATE = date(2003, 6, 14)
E3_DATE = date(2003, 7, 5)
E4_DATE = date(2003, 8, 2)
EXACT = 1e-9


def category(slug) -> Category:
    return Category.objects.get(slug=slug)


def participant(number) -> int:
    return Player.objects.get(membership_number=number).participant_id


def team_participant(*members) -> int:
    return Team.objects.get(member_key=" ".join(sorted(members))).participant_id


def a_player(number, country="", region="") -> int:
    player = Player.objects.create(
        participant=Participant.objects.create(kind=Participant.Kind.PLAYER),
        membership_number=number,
        name=f"Player {number}",
        country=country,
        region=region,
    )
    return player.participant_id


def import_default_bundle(tmp_path):
    return results_import(source=Bundle(tmp_path).write())


def entries(slug, **where):
    return RatingEntry.objects.filter(category=category(slug), **where)


def rating_after(slug, number_or_participant, **where) -> float:
    """The participant's rating after their last entry."""
    who = number_or_participant if isinstance(number_or_participant, int) else participant(number_or_participant)
    return entries(slug, participant_id=who, **where).order_by("-seq").first().rating_after


def queued_runs():
    """(category slug, since) of every queued run, sorted."""
    return sorted(RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).values_list("category__slug", "since"))


# a world of random results, written in bulk ----------------------------------------------------------

RESULTS = [(2, 0), (2, 1), (1, 2), (0, 2), (1, 1), (0, 0), (2, 0)]


def a_world(*, seed=7, players=9, events=6, rounds=3, format="standard", start=date(2003, 1, 4)):
    """Random swiss events 14 days apart (odd player counts give byes); returns the events, oldest first."""
    rng = random.Random(seed)
    people = [a_player(f"W{seed}-{n}") for n in range(players)]
    made = Event.objects.bulk_create(
        Event(
            code=f"W{seed}-{index}",
            name=f"World event {index}",
            date=start + timedelta(days=14 * index),
            format=format,
            k=rng.choice([8, 16, 24, 32, 40, 48]),
            player_count=[8, 20, 40, 7, 12, 64][index % 6],
            level2_judge=rng.random() < 0.5,
            status=EventStatus.SUBMITTED,
        )
        for index in range(events)
    )
    Match.objects.bulk_create(_random_rounds(rng, made, people, rounds))
    return sorted(made, key=lambda event: (event.date, event.pk))


def _random_rounds(rng, events, people, rounds):
    matches = []
    for event in events:
        for number in range(1, rounds + 1):
            seating = rng.sample(people, len(people))
            for one, two in zip(seating[::2], seating[1::2], strict=False):
                games1, games2 = rng.choice(RESULTS)
                matches.append(Match(event=event, round=number, participant1_id=one, participant2_id=two,
                                     games1=games1, games2=games2))  # fmt: skip
            if len(seating) % 2:
                matches.append(Match(event=event, round=number, participant1_id=seating[-1]))
    return matches


def an_event_with_random_rounds(*, on, seed=99, format="standard", rounds=2, **fields):
    """A submitted event among the world's players, written in bulk (nothing queued)."""
    rng = random.Random(seed)
    people = list(Player.objects.filter(membership_number__startswith="W").values_list("participant_id", flat=True))
    event = Event.objects.bulk_create(
        [
            Event(
                code=f"X{seed}",
                name=f"Extra {seed}",
                date=on,
                format=format,
                k=fields.pop("k", 24),
                player_count=fields.pop("player_count", 16),
                level2_judge=True,
                status=EventStatus.SUBMITTED,
                **fields,
            )
        ]
    )[0]
    Match.objects.bulk_create(_random_rounds(rng, [event], people, rounds))
    return event


def a_ruleset_category(ruleset: str) -> Category:
    """A category rating "standard" events by `ruleset` (constructed for dci-2001)."""
    if ruleset == "dci-2001":
        return category("constructed")
    return Category.objects.create(
        slug=f"standard-{ruleset}",
        name=f"Standard ({ruleset})",
        ruleset=ruleset,
        formats="standard",
        team_size=1,
        provisional_until=8 if ruleset == "dci-1997" else 0,
        ranked_after=25 if ruleset == "dci-1997" else 16,
    )


def by_seq(cat):
    """(participant, seq) -> (match, rating after) over the category's whole history."""
    return {
        (who, seq): (match, after)
        for who, seq, match, after in RatingEntry.objects.filter(category=cat).values_list(
            "participant_id", "seq", "match_id", "rating_after"
        )
    }


def by_match(cat):
    """(participant, match) -> rating after over the category's whole history."""
    return {
        (who, match): after
        for who, match, after in RatingEntry.objects.filter(category=cat).values_list(
            "participant_id", "match_id", "rating_after"
        )
    }


def rows_before(cat, day):
    """Every stored value of every entry before `day`, ids included."""
    return set(RatingEntry.objects.filter(category=cat, event_date__lt=day).values_list())


def assert_same_ratings(partial, full):
    assert partial.keys() == full.keys()
    for key, value in full.items():
        other = partial[key]
        if isinstance(value, tuple):
            assert other[0] == value[0], key
            assert math.isclose(other[1], value[1], rel_tol=0, abs_tol=EXACT), (key, other, value)
        else:
            assert math.isclose(other, value, rel_tol=0, abs_tol=EXACT), (key, other, value)


# what a published history is made of -----------------------------------------------------------------


def published(cat) -> tuple[set, set]:
    """The category's history and today's list, row by row (ids included)."""
    return (
        set(RatingEntry.objects.filter(category=cat).values_list()),
        set(CurrentRating.objects.filter(category=cat).values_list()),
    )


def history_tables() -> set[str]:
    return tables_named(f"{RatingEntry._meta.db_table}_c%")


def ratings_by_seq(cat) -> set[tuple]:
    return set(RatingEntry.objects.filter(category=cat).values_list("seq", "participant_id", "rating_after"))


def tables_named(pattern: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE %s", [pattern])
        return {name for (name,) in cursor.fetchall()}


def rows_by_partition(model, category_id: int) -> list[tuple[str, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tableoid::regclass::text, COUNT(*) FROM {model._meta.db_table} WHERE category_id = %s GROUP BY 1",
            [category_id],
        )
        return cursor.fetchall()
