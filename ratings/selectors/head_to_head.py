"""Every rated meeting of two participants, and a team's page once it is rated."""

from dataclasses import dataclass

from players.formatting import outcome
from players.models import Participant, Team
from ratings.models import Category, RatingEntry, Ruleset
from ratings.selectors.players import Record


def team_by_participant(*, participant_id: int) -> Team | None:
    """The team, once it has been rated: a team only an organizer's draft names (with a name of the organizer's
    choosing) is not shown, as the draft's new players are not (Player.public)."""
    if not RatingEntry.objects.filter(participant_id=participant_id).exists():
        return None
    return Team.objects.filter(participant_id=participant_id).prefetch_related("members").first()


# Head-to-head -------------------------------------------------------------------------


@dataclass(slots=True)
class Meeting:
    """One rated match between two players in one category, from the first player's side."""

    entry: RatingEntry  # the first player's history row
    opponent_change: float | None

    @property
    def outcome(self) -> str:
        return outcome(self.entry.score)

    @property
    def event(self):
        return self.entry.event

    @property
    def event_id(self) -> int:
        return self.entry.event_id

    @property
    def category(self):
        return self.entry.category

    @property
    def category_id(self) -> int:
        return self.entry.category_id


@dataclass(slots=True)
class HeadToHead:
    meetings: list[Meeting]  # newest first
    record: Record  # over distinct matches
    categories: list[Category]
    net_change: float  # the first player's rating gained against the second, all categories


def head_to_head(*, player: Participant | int, opponent: Participant | int) -> HeadToHead:
    """Every rated match between two participants, in every category, with both sides' changes (two queries)."""
    player_id = getattr(player, "pk", player)
    opponent_id = getattr(opponent, "pk", opponent)
    categories = Category.objects.exclude(ruleset__in=[Ruleset.DERIVED, Ruleset.VEKN]).values("pk")
    ours = (
        RatingEntry.objects.filter(category__in=categories, participant_id=player_id, opponent_id=opponent_id)
        .select_related("event", "match", "category")
        .order_by("-event_date", "-event_id", "category__position", "category_id", "-round")
    )
    theirs = {
        (category_id, match_id): after - before
        for category_id, match_id, before, after in RatingEntry.objects.filter(
            category__in=categories, participant_id=opponent_id, opponent_id=player_id
        )
        .order_by()
        .values_list("category_id", "match_id", "rating_before", "rating_after")
    }
    meetings, record, seen, used = [], Record(), set(), {}
    for entry in ours:
        meetings.append(Meeting(entry, theirs.get((entry.category_id, entry.match_id))))
        used[entry.category_id] = entry.category
        if entry.match_id not in seen:  # a match rated in two categories is still one match
            seen.add(entry.match_id)
            record.add(entry.score)
    net = sum(meeting.entry.change for meeting in meetings)
    ordered = sorted(used.values(), key=lambda category: (category.position, category.slug))
    return HeadToHead(meetings, record, ordered, net)
