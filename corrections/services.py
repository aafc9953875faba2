"""Writes of appeals and corrections: filing an appeal, deciding it, correcting, removing or adding a match.

Every change to a match goes with its Correction record and the recompute of
each category the match feeds, from the match's date on (SPEC 5), in one
transaction: the worker sees the run only once the change is committed, and
an error anywhere leaves nothing half-saved.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from accounts.models import MembershipClaim, Profile
from accounts.selectors import user_player
from corrections.models import (
    Appeal,
    AppealStatus,
    Correction,
    CorrectionKind,
    CorrectionSource,
    DetailRequest,
    PlayerMerge,
)
from corrections.selectors import match_label, participants_of_player
from events.models import Event, EventStatus, Match, Standing
from events.services import event_kinds, results_changed_send
from lib.decisions import decision_record
from players.models import Participant, Player, Suspension, Team, team_member_key
from players.services import team_member_keys_refresh
from ratings.tasks import participant_lists_refresh_task

# At most this many appeals per account in any 24 hours (settings.APPEALS_PER_DAY overrides it).
APPEALS_PER_DAY = 5
APPEAL_WINDOW = timedelta(days=1)


def appeals_per_day() -> int:
    return getattr(settings, "APPEALS_PER_DAY", APPEALS_PER_DAY)


@dataclass(frozen=True, slots=True)
class Result:
    """A match's games, participant 1's first."""

    games1: int
    games2: int
    draws: int = 0
    elimination: bool = False

    @classmethod
    def of(cls, match: Match) -> "Result":
        return cls(match.games1, match.games2, match.draws, match.elimination)


def _require_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": _("Say why: every correction is recorded with its reason.")})
    return reason


def _check_result(result: Result, *, bye: bool = False) -> None:
    if bye:
        raise ValidationError(_("A bye has no result to correct: it is never rated."))
    if result.elimination and result.games1 == result.games2:
        raise ValidationError(_("An elimination-round match cannot be a draw: one side must win more games."))


# Appeals ----------------------------------------------------------------------------


@transaction.atomic
def appeal_file(*, user, match: Match, own_games: int, opponent_games: int, draws: int, explanation: str) -> Appeal:
    """A linked player appeals a match in their own history; the claimed games are given from their side.

    Raises PermissionDenied when the match is not theirs, ValidationError for
    anything else that is wrong with the appeal (nothing is saved then).
    """
    player = user_player(user=user)
    if player is None:
        raise PermissionDenied(_("Your account is not linked to a player yet: an admin links it to your number."))
    match = Match.objects.select_related("event").get(pk=match.pk)
    ours = participants_of_player(player=player)
    if match.participant1_id in ours:
        side = 1
    elif match.participant2_id is not None and match.participant2_id in ours:
        side = 2
    else:
        raise PermissionDenied(_("You can appeal only matches you played."))
    if match.is_bye:
        raise ValidationError(_("A bye has no result to appeal: it is never rated."))
    if match.event.status == EventStatus.DRAFT:
        raise ValidationError(_("This event has not been submitted for rating yet: ask its organizer."))
    explanation = (explanation or "").strip()
    if not explanation:
        raise ValidationError({"explanation": _("Say what happened: the admins decide on what you write here.")})
    claimed = (own_games, opponent_games) if side == 1 else (opponent_games, own_games)
    if match.elimination and own_games == opponent_games:
        raise ValidationError(_("This was an elimination-round match: it cannot have been a draw."))
    if (*claimed, draws) == (match.games1, match.games2, match.draws):
        raise ValidationError(_("That is the result already recorded: an appeal asks for a different one."))
    if Appeal.objects.open().filter(match=match, player=player).exists():
        raise ValidationError(_("You already have an open appeal for this match: see “My appeals”."))
    # One account's appeals are counted and written one at a time: without the lock, appeals posted at
    # once each counted the others as not there yet, and ten of them stored six with a limit of five.
    # (SQLite writes one transaction at a time anyway.)
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    now = timezone.now()
    recent = Appeal.objects.filter(filed_by=user, created_at__gt=now - APPEAL_WINDOW)
    limit = appeals_per_day()
    if recent.count() >= limit:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        if oldest is None:
            raise ValidationError(_("You can file at most %(limit)s appeals in 24 hours.") % {"limit": limit})
        when = f"{timezone.localtime(oldest + APPEAL_WINDOW):%Y-%m-%d %H:%M %Z}"
        raise ValidationError(
            _("You can file at most %(limit)s appeals in 24 hours: the next one after %(when)s.")
            % {"limit": limit, "when": when}
        )
    try:
        with transaction.atomic():
            return Appeal.objects.create(
                match=match,
                match_label=match_label(match),
                player=player,
                filed_by=user,
                side=side,
                reported_games1=match.games1,
                reported_games2=match.games2,
                reported_draws=match.draws,
                claimed_games1=claimed[0],
                claimed_games2=claimed[1],
                claimed_draws=draws,
                explanation=explanation,
                created_at=now,
            )
    except IntegrityError:  # filed twice at once: the database keeps one open appeal per match and player
        raise ValidationError(_("You already have an open appeal for this match: see “My appeals”.")) from None


def _open_appeal_locked(appeal: Appeal) -> Appeal:
    appeal = Appeal.objects.select_for_update().get(pk=appeal.pk)
    if not appeal.is_open:
        raise ValidationError(
            _("This appeal was %(status)s already.") % {"status": appeal.get_status_display().lower()}
        )
    return appeal


def _decide(appeal: Appeal, *, status: str, by, reason: str) -> Appeal:
    appeal.status, appeal.decided_by, appeal.decided_at, appeal.decision_reason = status, by, timezone.now(), reason
    appeal.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    return appeal


@transaction.atomic
def appeal_accept(*, appeal: Appeal, by, reason: str) -> Correction:
    """Apply the claimed result as a correction and close the appeal, in one transaction."""
    reason = _require_reason(reason)
    appeal = _open_appeal_locked(appeal)
    if appeal.match_id is None:
        raise ValidationError(_("The match was removed since the appeal was filed: reject the appeal instead."))
    reported = Result(appeal.reported_games1, appeal.reported_games2, appeal.reported_draws)
    current = Match.objects.get(pk=appeal.match_id)
    if (current.games1, current.games2, current.draws) != (reported.games1, reported.games2, reported.draws):
        raise ValidationError(
            _(
                "The match's result changed since the appeal was filed: check the match again, then reject the "
                "appeal or correct the match directly."
            )
        )
    correction = match_correct(
        match=current,
        result=Result(appeal.claimed_games1, appeal.claimed_games2, appeal.claimed_draws, current.elimination),
        reason=reason,
        by=by,
        appeal=appeal,
    )
    _decide(appeal, status=AppealStatus.ACCEPTED, by=by, reason=reason)
    return correction


@transaction.atomic
def appeal_reject(*, appeal: Appeal, by, reason: str) -> Appeal:
    reason = _require_reason(reason)
    appeal = _open_appeal_locked(appeal)
    return _decide(appeal, status=AppealStatus.REJECTED, by=by, reason=reason)


# Corrections ------------------------------------------------------------------------


def _record(match: Match, *, kind: str, source: str, old: Result | None, new: Result | None, reason, by, appeal=None):
    event = match.event
    return Correction.objects.create(
        kind=kind,
        source=source,
        match=None if kind == CorrectionKind.REMOVAL else match,
        event=event,
        event_name=event.name,
        event_date=event.date,
        event_format=event.format,
        event_team_size=event.team_size,
        round=match.round,
        participant1_id=match.participant1_id,
        participant2_id=match.participant2_id,
        old_games1=old and old.games1,
        old_games2=old and old.games2,
        old_draws=old and old.draws,
        old_elimination=old and old.elimination,
        new_games1=new and new.games1,
        new_games2=new and new.games2,
        new_draws=new and new.draws,
        new_elimination=new and new.elimination,
        reason=reason,
        corrected_by=by,
        appeal=appeal,
    )


def _results_changed(event: Event, correction: Correction, *, by) -> None:
    """Ask for the recompute of every list the event feeds, from its date, with the correction's reason and author.

    A draft's results are rated once it is submitted: nothing is asked for them.
    """
    reason = f"correction #{correction.pk}: {correction.get_kind_display().lower()} in {correction.event_name}"
    results_changed_send(kinds=event_kinds(events=[event]), reason=reason, requested_by=by)


class MatchGone(Exception):
    """The match was removed by someone else after this admin's page was loaded (the view answers 409)."""


def _locked_match(match: Match) -> Match:
    # Two admins removing (or one correcting) the same match at once: the second waits here for the first
    # one's lock, and then finds no match.
    found = Match.objects.select_for_update().select_related("event").filter(pk=match.pk).first()
    if found is None:
        raise MatchGone(
            _("This match (%(match)s) was removed meanwhile, by another admin or an import.")
            % {"match": match_label(match)}
        )
    return found


@transaction.atomic
def match_correct(
    *, match: Match, result: Result, reason: str, by, appeal: Appeal | None = None, expected: Result | None = None
) -> Correction:
    """Give a match a new result, recorded as a correction; its categories are recomputed from its date.

    `expected` is the result the admin saw (in an impact preview): when the
    match no longer has it, nothing is changed.
    """
    reason = _require_reason(reason)
    match = _locked_match(match)
    old = Result.of(match)
    if expected is not None and old != expected:
        raise ValidationError(_("The match was changed since you looked at it: check the new result and try again."))
    _check_result(result, bye=match.is_bye)
    if result == old:
        raise ValidationError(_("That is the result already recorded: nothing to correct."))
    match.games1, match.games2, match.draws, match.elimination = (
        result.games1,
        result.games2,
        result.draws,
        result.elimination,
    )
    match.save(update_fields=["games1", "games2", "draws", "elimination"])
    source = CorrectionSource.APPEAL if appeal is not None else CorrectionSource.ADMIN
    correction = _record(match, kind=CorrectionKind.RESULT, source=source, old=old, new=result, reason=reason, by=by,
                         appeal=appeal)  # fmt: skip
    _results_changed(match.event, correction, by=by)
    return correction


@transaction.atomic
def match_remove(*, match: Match, reason: str, by, expected: Result | None = None) -> Correction:
    """Remove a match, recorded as a correction; its open appeals are closed, its categories recomputed."""
    reason = _require_reason(reason)
    match = _locked_match(match)
    old = Result.of(match)
    if expected is not None and old != expected:
        raise ValidationError(_("The match was changed since you looked at it: check it again before removing it."))
    correction = _record(match, kind=CorrectionKind.REMOVAL, source=CorrectionSource.ADMIN, old=old, new=None,
                         reason=reason, by=by)  # fmt: skip
    for appeal in Appeal.objects.open().filter(match=match).select_for_update():
        _decide(appeal, status=AppealStatus.REJECTED, by=by, reason=f"The match was removed: {reason}")
    event = match.event
    match.delete()
    _results_changed(event, correction, by=by)
    return correction


@dataclass(frozen=True, slots=True)
class NewMatch:
    event: Event
    round: int
    participant1: Participant
    participant2: Participant | None  # None: a bye
    result: Result


def kind_problem(event: str, expected: str, participant: Participant) -> str:
    """Why `participant` cannot play at the event named `event`, which is played by `expected` (players or teams)."""
    if expected == Participant.Kind.PLAYER:
        text = _("%(event)s is played by players; %(participant)s is a team.")
    else:
        text = _("%(event)s is played by teams; %(participant)s is a player.")
    return text % {"event": event, "participant": participant}


def new_match_problems(new: NewMatch) -> dict[str, str]:
    """What stops `new` from being added to its event: field name -> why (empty when it may be added)."""
    event, problems = new.event, {}
    expected = Participant.Kind.PLAYER if event.team_size == 1 else Participant.Kind.TEAM
    for name in ("participant1", "participant2"):
        participant = getattr(new, name)
        if participant is None:
            continue
        if participant.kind != expected:
            problems[name] = kind_problem(event.name, expected, participant)
            continue
        booked = Match.objects.filter(event=event, round=new.round).filter(
            Q(participant1=participant) | Q(participant2=participant)
        )
        if booked.exists():
            problems[name] = _("%(participant)s already plays a match in round %(round)s of %(event)s.") % {
                "participant": participant,
                "round": new.round,
                "event": event.name,
            }
    if new.participant2 is not None and new.participant1 == new.participant2:
        problems["participant2"] = _("Nobody plays themselves: choose two different sides.")
    if new.result.elimination and new.result.games1 == new.result.games2:
        problems["games2"] = _("An elimination-round match cannot be a draw: one side must win more games.")
    return problems


@transaction.atomic
def match_add(*, new: NewMatch, reason: str, by) -> Correction:
    """Add a missing match to an event, recorded as a correction; its categories are recomputed from its date."""
    reason = _require_reason(reason)
    event = Event.objects.select_for_update().get(pk=new.event.pk)
    problems = new_match_problems(NewMatch(event, new.round, new.participant1, new.participant2, new.result))
    if problems:
        raise ValidationError(problems)
    match = Match.objects.create(
        event=event,
        round=new.round,
        participant1=new.participant1,
        participant2=new.participant2,
        games1=new.result.games1,
        games2=new.result.games2,
        draws=new.result.draws,
        elimination=new.result.elimination,
    )
    correction = _record(match, kind=CorrectionKind.ADDITION, source=CorrectionSource.ADMIN, old=None,
                         new=new.result, reason=reason, by=by)  # fmt: skip
    _results_changed(event, correction, by=by)
    return correction


# A player's own details ------------------------------------------------------------------------------------------


@transaction.atomic
def detail_request_file(*, user, name: str, country: str, region: str, explanation: str) -> DetailRequest:
    """A linked player asks to correct their name, country or region; it waits for an admin. Replaces their
    open request; checked by the same rules as any player's details, so an admin can accept it as it is."""
    player = user_player(user=user)
    if player is None:
        raise PermissionDenied(_("Your account is not linked to a player yet: an admin links it to your number."))
    name, region = name.strip(), region.strip().upper()
    if (name, country or "", region) == (player.name, player.country.code or "", player.region):
        raise ValidationError(_("Change at least one of your details."))
    if not explanation.strip():
        raise ValidationError({"explanation": _("Say why: the admin reads it.")})
    asked = Player(
        pk=player.pk, participant_id=player.participant_id, membership_number=player.membership_number,
        name=name, country=country, region=region,
    )  # fmt: skip
    asked.full_clean(validate_unique=False)
    DetailRequest.objects.filter(player=player, status=AppealStatus.OPEN).delete()
    return DetailRequest.objects.create(
        player=player, filed_by=user, name=name, country=country, region=region, explanation=explanation.strip(),
        old_name=player.name, old_country=player.country.code or "", old_region=player.region,
    )  # fmt: skip


def _detail_request_decide(request: DetailRequest, *, by, reason: str, status: str) -> DetailRequest:
    return decision_record(
        DetailRequest, request.pk, what="request", by=by, status=status, reason=reason,
        reason_field="decision_reason", related=("player",),
    )  # fmt: skip


@transaction.atomic
def detail_request_accept(*, request: DetailRequest, by, reason: str = "") -> DetailRequest:
    """The player's details become the requested ones; a job moves them in today's lists within moments."""
    request = _detail_request_decide(request, by=by, reason=reason, status=AppealStatus.ACCEPTED)
    player = Player.objects.select_for_update().get(pk=request.player_id)
    player.name, player.country, player.region = request.name, request.country, request.region
    player.full_clean(validate_unique=False)
    player.save(update_fields=["name", "country", "region"])
    # The job's row is written in this transaction: a worker sees it only with the new details, and a
    # decision rolled back leaves no job.
    participant_lists_refresh_task.enqueue(player.participant_id)
    return request


@transaction.atomic
def detail_request_reject(*, request: DetailRequest, by, reason: str) -> DetailRequest:
    if not reason.strip():
        raise ValidationError({"reason": _("Say why: the player reads it.")})
    return _detail_request_decide(request, by=by, reason=reason, status=AppealStatus.REJECTED)


# Suspensions ------------------------------------------------------------------------------------------------


@transaction.atomic
def suspension_save(*, suspension: Suspension, by) -> Suspension:
    """Record a suspension (or its change: lifted early, say). A job moves the player in today's lists (out of
    the ranks, or back in) and has past dates' lists written again; official lists stay as published."""
    if suspension.pk is None:
        suspension.suspended_by = by
    suspension.reason = suspension.reason.strip()
    if not suspension.reason:
        raise ValidationError({"reason": _("Say why: the player's page shows it.")})
    before = Suspension.objects.filter(pk=suspension.pk).values_list("starts_on", flat=True).first()
    suspension.full_clean()
    suspension.save()
    # From the earlier of its first days before and after the change: last month's column moves too when
    # the suspension reaches into it (the job's arguments are JSON: the date as text).
    since = min(filter(None, [before, suspension.starts_on]))
    participant_lists_refresh_task.enqueue(suspension.player.participant_id, True, since.isoformat())
    return suspension


@transaction.atomic
def suspension_delete(*, suspension: Suspension) -> None:
    """Remove a suspension recorded by mistake: the player is ranked as before it, today and at past dates."""
    participant_id, since = suspension.player.participant_id, suspension.starts_on
    suspension.delete()
    participant_lists_refresh_task.enqueue(participant_id, True, since.isoformat())


# Merging two numbers of one person --------------------------------------------------------------------------


@dataclass(frozen=True)
class MergePlan:
    """What merging `merged` into `kept` would move, and why it cannot be done (`conflicts`), before it is."""

    kept: Player
    merged: Player
    matches: int
    standings: int
    events: list[Event]  # the events the number given up played, earliest first
    teams: list[str]  # the teams the number given up is a member of
    conflicts: list[str]

    @property
    def since(self):
        return self.events[0].date if self.events else None


def merge_plan(*, kept: Player, merged: Player) -> MergePlan:
    """What a merge of `merged` into `kept` moves, and what stands in its way: one person cannot have played
    themselves, nor twice at one event, nor be two members of one team; two accounts cannot become one."""
    kp, mp = kept.participant_id, merged.participant_id
    conflicts = []
    if kept.pk == merged.pk:
        conflicts.append(_("A player cannot be merged into themselves."))
    if not (kept.public and merged.public):
        conflicts.append(_("Both numbers must be public players, not merged already."))
    matches = Match.objects.filter(Q(participant1=mp) | Q(participant2=mp))
    standings = Standing.objects.filter(participant=mp)
    event_ids = set(matches.values_list("event_id", flat=True)) | set(standings.values_list("event_id", flat=True))
    against = matches.filter(Q(participant1=kp) | Q(participant2=kp)).select_related("event").order_by("event__date")
    for match in against[:5]:
        conflicts.append(
            _("They played each other: %(event)s, round %(round)s.") % {"event": match.event.name, "round": match.round}
        )
    kept_events = set(
        Match.objects.filter(Q(participant1=kp) | Q(participant2=kp)).values_list("event_id", flat=True)
    ) | set(Standing.objects.filter(participant=kp).values_list("event_id", flat=True))
    for event in Event.objects.filter(pk__in=(event_ids & kept_events) - {m.event_id for m in against}).order_by(
        "date"
    )[:5]:
        day = dateformat.format(event.date, pgettext("a day in a sentence (PHP date format)", "d M Y"))
        conflicts.append(
            _("Both played at %(event)s (%(date)s): one person plays an event once.")
            % {"event": event.name, "date": day}
        )
    teams = list(merged.teams.prefetch_related("members"))
    for team in teams:
        numbers = [member.membership_number for member in team.members.all()]
        if kept.membership_number in numbers:
            conflicts.append(_("Both are members of the team %(team)s.") % {"team": team})
            continue
        # A team is its set of members: with the kept number in it, it must not be another team already.
        key = team_member_key(kept.membership_number if n == merged.membership_number else n for n in numbers)
        same = Team.objects.filter(member_key=key).exclude(pk=team.pk).first()
        if same is not None:
            conflicts.append(
                _("The team %(team)s would have the members of the team %(same)s: one team, two records.")
                % {"team": team, "same": same}
            )
    if Profile.objects.filter(player__in=[kept, merged]).count() == 2:
        conflicts.append(_("Both numbers are linked to accounts: unlink one in the admin first."))
    return MergePlan(
        kept=kept,
        merged=merged,
        matches=matches.count(),
        standings=standings.count(),
        events=list(Event.objects.filter(pk__in=event_ids).order_by("date", "pk")),
        teams=[str(team) for team in teams],
        conflicts=conflicts,
    )


@transaction.atomic
def players_merge(*, kept: Player, merged: Player, reason: str, by) -> PlayerMerge:
    """Merge the number `merged` into `kept` (SPEC 5): its matches, standings, corrections, appeals, claims,
    suspensions, team places and account move to `kept`; every list its events feed is recomputed from the
    earliest of them; the number given up is hidden and its page redirects. Refused, nothing changes."""
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": _("Say why: the correction log shows it.")})
    kept = Player.objects.select_for_update().get(pk=kept.pk)
    merged = Player.objects.select_for_update().get(pk=merged.pk)
    plan = merge_plan(kept=kept, merged=merged)
    if plan.conflicts:
        raise ValidationError(plan.conflicts)
    kp, mp = kept.participant_id, merged.participant_id
    Match.objects.filter(participant1=mp).update(participant1=kp)
    Match.objects.filter(participant2=mp).update(participant2=kp)
    Standing.objects.filter(participant=mp).update(participant=kp)
    Correction.objects.filter(participant1=mp).update(participant1=kp)
    Correction.objects.filter(participant2=mp).update(participant2=kp)
    Appeal.objects.filter(player=merged).update(player=kept)
    MembershipClaim.objects.filter(player=merged).update(player=kept)
    DetailRequest.objects.filter(player=merged, status=AppealStatus.OPEN).delete()  # asked of a number given up
    DetailRequest.objects.filter(player=merged).update(player=kept)
    Suspension.objects.filter(player=merged).update(player=kept)
    Profile.objects.filter(player=merged).update(player=kept)
    for team in merged.teams.all():
        team.members.remove(merged)
        team.members.add(kept)
    team_member_keys_refresh(player=kept)
    merged.public = False
    merged.save(update_fields=["public"])
    merge = PlayerMerge.objects.create(
        kept=kept, merged=merged, merged_number=merged.membership_number, merged_name=merged.name, reason=reason,
        merged_by=by, matches_moved=plan.matches, standings_moved=plan.standings, since=plan.since,
    )  # fmt: skip
    results_changed_send(
        kinds=event_kinds(events=plan.events),
        reason=f"merge #{merge.pk}: {merged.membership_number} into {kept.membership_number}",
        requested_by=by,
    )
    return merge
