"""Reads of appeals and corrections: who may appeal what, the queue, the log, the marks on history rows."""

from dataclasses import dataclass
from datetime import date

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from accounts.selectors import user_manages_all_events, user_player
from corrections.models import Appeal, AppealStatus, Correction, DetailRequest, PlayerMerge, participant_name
from events.models import Match
from lib.lookups import any_of
from players.models import Participant, Player, Team


def user_decides_appeals(*, user) -> bool:
    """Admins (the Admins role, or superusers) decide appeals and correct matches."""
    return user_manages_all_events(user=user)


def participants_of_player(*, player: Player) -> set[int]:
    """The participants whose matches are the player's own: the player, and every team they play in."""
    teams = Team.objects.filter(members=player).values_list("participant_id", flat=True)
    return {player.participant_id, *teams}


def match_label(match: Match) -> str:
    """The match in words, as an appeal keeps it: "Munich Open (2003-05-01), round 2: Alice vs Bruno"."""
    event = match.event
    return f"{event.name} ({event.date:%Y-%m-%d}), round {match.round}: {match_pairing(match)}"


def match_pairing(match: Match) -> str:
    return f"{participant_name(match.participant1)} vs {participant_name(match.participant2)}"


def matches_with_sides() -> QuerySet[Match]:
    return Match.objects.select_related(
        "event", "participant1__player", "participant1__team", "participant2__player", "participant2__team"
    )


def match_for_appeal(*, match_id: int) -> Match | None:
    return matches_with_sides().filter(pk=match_id).first()


def appeal_side(*, user, match: Match) -> int | None:
    """1 or 2: the user's side of the match as its linked player (or a member of its team); None otherwise."""
    player = user_player(user=user)
    if player is None:
        return None
    ours = participants_of_player(player=player)
    if match.participant1_id in ours:
        return 1
    if match.participant2_id is not None and match.participant2_id in ours:
        return 2
    return None


# The player's history: a link to appeal each of their own matches --------------------------


def user_plays_as(*, user, participant_id: int) -> bool:
    """Whether `participant_id` is the user's linked player, or a team they play in."""
    player = user_player(user=user)
    return player is not None and participant_id in participants_of_player(player=player)


@dataclass(frozen=True, slots=True)
class AppealMark:
    """What a player's own history row offers: a link to appeal the match, or their appeal's status."""

    url: str
    label: str
    status: str = ""  # empty: no appeal yet (the link files one)


def appeal_marks(*, user, participant_id: int, match_ids) -> dict[int, AppealMark]:
    """match id -> the appeal link or status on `participant_id`'s history rows, when they are `user`'s own.

    Empty for everyone but the participant's linked player (or, for a team, its members).
    """
    if not user_plays_as(user=user, participant_id=participant_id):
        return {}
    player = user_player(user=user)
    latest: dict[int, Appeal] = {}
    for appeal in Appeal.objects.filter(player=player, match_id__in=match_ids).order_by("created_at", "pk"):
        latest[appeal.match_id] = appeal
    my_appeals = reverse("corrections:my_appeals")
    marks = {}
    for match_id in match_ids:
        appeal = latest.get(match_id)
        if appeal is not None and appeal.is_open:
            marks[match_id] = AppealMark(f"{my_appeals}#appeal-{appeal.pk}", gettext("Appeal open"), appeal.status)
        else:
            marks[match_id] = AppealMark(reverse("corrections:appeal_new", args=[match_id]), gettext("Appeal"))
    return marks


# Appeals ------------------------------------------------------------------------------


def appeals_of_user(*, user) -> QuerySet[Appeal]:
    return Appeal.objects.with_match().select_related("correction").filter(filed_by=user).order_by("-created_at", "-pk")


def appeals_open() -> QuerySet[Appeal]:
    """The admins' queue: open appeals, oldest first."""
    return Appeal.objects.with_match().open().order_by("created_at", "pk")


def appeals_decided(*, limit: int = 20) -> QuerySet[Appeal]:
    return (
        Appeal.objects.with_match()
        .select_related("correction")
        .exclude(status=AppealStatus.OPEN)
        .order_by("-decided_at", "-pk")[:limit]
    )


def appeal_get(*, appeal_id: int) -> Appeal | None:
    return Appeal.objects.with_match().select_related("correction").filter(pk=appeal_id).first()


def appeals_open_count() -> int:
    return Appeal.objects.open().count()


# Corrections --------------------------------------------------------------------------


def correction_list() -> QuerySet[Correction]:
    """Every correction, newest first, with the names its rows show."""
    return Correction.objects.with_names().select_related("appeal__player").order_by("-corrected_at", "-pk")


def correction_get(*, correction_id: int) -> Correction | None:
    return correction_list().filter(pk=correction_id).first()


def corrections_of_matches(*, match_ids) -> QuerySet[Correction]:
    # Most pages show matches nobody corrected. The corrections are looked up alone first (under a millisecond
    # for a round of 450 matches), then read with every name they show, only when there are some: the query
    # with its seven joins took 3 ms for that round, whether it found any or not.
    found = list(Correction.objects.filter(any_of("match_id", match_ids)).values_list("pk", flat=True))
    if not found:
        return Correction.objects.none()
    return Correction.objects.with_names().filter(pk__in=found).order_by("corrected_at", "pk")


def corrections_of_player(*, query: str) -> Q:
    """Corrections of matches played by a player (by membership number or part of the name), or their teams."""
    query = query.strip()
    players = Player.objects.public().filter(Q(membership_number=query) | Q(name__icontains=query))
    participants = Participant.objects.filter(Q(player__in=players) | Q(team__members__in=players)).values("pk")
    return Q(participant1__in=participants) | Q(participant2__in=participants)


@dataclass(frozen=True, slots=True)
class MatchCorrection:
    """A correction of a match's result (SPEC 5): who, when, the old and new result, and why."""

    corrected_on: date
    corrected_by: str
    old_result: str
    new_result: str
    reason: str
    url: str = ""  # its entry in the public correction log

    def __str__(self):
        return gettext("%(date)s: %(old)s → %(new)s by %(by)s: %(reason)s") % {
            "date": f"{self.corrected_on:%Y-%m-%d}",
            "old": self.old_result,
            "new": self.new_result,
            "by": self.corrected_by,
            "reason": self.reason,
        }


def match_corrections(*, match_ids) -> dict[int, list[MatchCorrection]]:
    """match id -> its corrections, oldest first, for marking corrected matches wherever they are shown.

    One query for all `match_ids`: the player history, head-to-head and event
    pages call this for the rows they show and mark every match it returns.
    """
    found: dict[int, list[MatchCorrection]] = {}
    if not match_ids:
        return found
    for correction in corrections_of_matches(match_ids=match_ids):
        found.setdefault(correction.match_id, []).append(
            MatchCorrection(
                corrected_on=timezone.localdate(correction.corrected_at),
                corrected_by=correction.corrected_by_name,
                old_result=correction.old_result,
                new_result=correction.new_result,
                reason=correction.reason,
                url=correction.get_absolute_url(),
            )
        )
    return found


# Players' own details ----------------------------------------------------------------------------------------------


def detail_requests_open():
    """Requests to correct a player's details, oldest first."""
    return (
        DetailRequest.objects.filter(status=AppealStatus.OPEN)
        .select_related("player", "filed_by")
        .order_by("filed_at", "pk")
    )


def detail_requests_decided(*, limit: int = 20) -> list[DetailRequest]:
    return list(
        DetailRequest.objects.exclude(status=AppealStatus.OPEN)
        .select_related("player", "decided_by")
        .order_by("-decided_at", "-pk")[:limit]
    )


def detail_requests_of_player(*, player: Player) -> list[DetailRequest]:
    return list(DetailRequest.objects.filter(player=player).order_by("-filed_at", "-pk"))


def detail_request_get(*, request_id: int) -> DetailRequest | None:
    return DetailRequest.objects.select_related("player", "filed_by").filter(pk=request_id).first()


def merged_into(*, number: str) -> Player | None:
    """The public player a merged number now belongs to (following merges of merges), if it was merged."""
    merge = PlayerMerge.objects.select_related("kept").filter(merged_number=number).first()
    for _ in range(10):  # a chain of merges ends at a public player
        if merge is None:
            return None
        if merge.kept.public:
            return merge.kept
        merge = PlayerMerge.objects.select_related("kept").filter(merged=merge.kept).first()
    return None


def merges_recent(*, limit: int = 20):
    """The latest merges, newest first: the correction log lists them."""
    return PlayerMerge.objects.select_related("kept", "merged_by").order_by("-merged_at", "-pk")[:limit]
