"""Every rated meeting of two participants, and a team's page once it is rated."""

from dataclasses import dataclass

from events.models import KValue
from players.formatting import outcome
from players.models import Participant, Team
from ratings.engine.calculator import SideOutlook, meeting_outlook
from ratings.models import Category, CurrentRating, RatingEntry, Ruleset
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


# Their next meeting ----------------------------------------------------------------------------------------------

# The rulesets a next meeting can be foreseen under: Elo lists rated match by match (not V:EKN, not derived lists).
FORESEEABLE = (Ruleset.DCI_2001, Ruleset.DCI_1997, Ruleset.MATCH_POINTS)
NEXT_MEETING_K = KValue.DEFAULT  # the 2001 rules' K of an ordinary event; a K twice as big doubles every change


@dataclass(frozen=True, slots=True)
class NextMeeting:
    """A list both players are in: each one's chance and rating change for each result if they met next."""

    category: Category
    mine: SideOutlook
    theirs: SideOutlook
    provisional: bool  # either rating is provisional: its real change follows the provisional formula

    @property
    def event_k(self) -> int | None:
        """The event K the changes assume, when the ruleset takes K from the event."""
        return NEXT_MEETING_K if self.category.ruleset == Ruleset.DCI_2001 else None


def next_meetings(*, player: Participant | int, opponent: Participant | int) -> list[NextMeeting]:
    """Each Elo list holding both participants today, in the lists' order (one query)."""
    ids = (getattr(player, "pk", player), getattr(opponent, "pk", opponent))
    rows = (
        CurrentRating.objects.filter(participant_id__in=ids, category__ruleset__in=FORESEEABLE)
        .select_related("category")
        .order_by("category__position", "category__slug")
    )
    by_category: dict[int, dict[int, CurrentRating]] = {}
    for row in rows:
        by_category.setdefault(row.category_id, {})[row.participant_id] = row
    meetings = []
    for pair in by_category.values():
        if len(pair) < 2:
            continue
        mine, theirs = pair[ids[0]], pair[ids[1]]
        category = mine.category
        k = NEXT_MEETING_K if category.ruleset == Ruleset.DCI_2001 else None
        outlook = meeting_outlook(mine.rating, theirs.rating, ruleset=category.ruleset, k=k)
        provisional = min(mine.matches, theirs.matches) < category.provisional_until
        meetings.append(NextMeeting(category, *outlook, provisional=provisional))
    return meetings
