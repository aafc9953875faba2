"""Writes of the organizers' pages: an event created, its results replaced, the event submitted.

Results reach the database only through `event_results_replace`, which checks
them with the importer's validator and writes them with its writer inside one
transaction: on any error nothing is written.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.selectors import user_can_organize, user_manages_all_events
from corrections.models import CorrectionSource
from events.models import Event, EventStatus, Match, Standing
from events.services import event_change_kinds, event_kinds, event_rated_fields, results_changed_send
from organize.importer.errors import BundleError
from organize.importer.event_results import EventResultsCheck, event_ref, event_results_check
from organize.importer.records import ValidBundle
from organize.importer.report import ImportReport
from organize.importer.rows import Row
from organize.importer.writing import BundleWriter
from organize.importer.writing_results import ImportCorrections
from organize.results import stored_results
from players.models import Participant, Player, Team, team_member_key
from ratings.models import RecomputeRun, RecomputeStatus
from ratings.selectors.history import categories_rating

SUBMITTED_IS_FOR_ADMINS = gettext_lazy("This event has been submitted: only admins change it now.")
REGISTERED_MEANWHILE = gettext_lazy(
    "another upload registered one of these new players a moment ago: nothing was saved; check and save again"
)
# New players one upload (or one round or standings page) registers at most: each is a row of the
# page to fill in, and more at once is a list for an admin to import.
NEW_PLAYERS_PER_UPLOAD = 500


class ResultsInvalid(Exception):
    """The results have errors; nothing was saved."""

    def __init__(self, check: EventResultsCheck):
        self.check = check
        super().__init__(f"{len(check.errors)} error(s) in the results")


class RegisteredMeanwhile(ResultsInvalid):
    """Another upload registered one of these new players between this one's check and its write (409)."""


# Players the organizers' drafts name: private until their event is submitted --------------------------------------


def _participants_named(event: Event | None = None) -> list:
    """Subqueries of the participants that `event`'s matches and standings name (any event's without one)."""
    matches = Match.objects.all() if event is None else Match.objects.filter(event=event)
    standings = Standing.objects.all() if event is None else Standing.objects.filter(event=event)
    return [
        matches.values("participant1"),
        matches.exclude(participant2=None).values("participant2"),
        standings.values("participant"),
    ]


def _players_named(event: Event | None = None) -> Q:
    """Players `event` (any event without one) names, themselves or as members of a team it names."""
    named = Q(pk__in=[])
    for participants in _participants_named(event):
        named |= Q(participant__in=participants) | Q(teams__participant__in=participants)
    return named


def _pending_players_of(event: Event) -> list[int]:
    return list(Player.objects.filter(_players_named(event), public=False).values_list("pk", flat=True).distinct())


def _pending_players_prune(player_ids: list[int]) -> None:
    """Delete those of these private players whom no event names any more, with their teams that no event names."""
    orphans = Player.objects.filter(pk__in=player_ids, public=False).exclude(_players_named())
    participants = list(orphans.values_list("participant_id", flat=True))
    if not participants:
        return
    teams = Team.objects.filter(members__participant__in=participants)
    for named in _participants_named():
        teams = teams.exclude(participant__in=named)
    team_participants = list(teams.values_list("participant_id", flat=True).distinct())
    Team.objects.filter(participant__in=team_participants).delete()
    Player.objects.filter(participant__in=participants).delete()
    Participant.objects.filter(pk__in=participants + team_participants).delete()


ONLY_DRAFTS_DELETED = gettext_lazy("Only drafts are deleted here.")


def event_editable_by(*, event: Event, user) -> bool:
    """Organizers change their own drafts; admins change any event at any time."""
    if user_manages_all_events(user=user):
        return True
    return event.status == EventStatus.DRAFT and event.organizer_id == user.pk and user_can_organize(user=user)


def _require_editable(event: Event, user) -> None:
    if not event_editable_by(event=event, user=user):
        raise PermissionDenied(SUBMITTED_IS_FOR_ADMINS)


def _locked(event: Event) -> Event:
    """The event's row, locked until the transaction ends: two saves of one event never interleave."""
    return Event.objects.select_for_update().get(pk=event.pk)


@transaction.atomic
def event_create(*, organizer, **fields) -> Event:
    if not user_can_organize(user=organizer):
        raise PermissionDenied(_("Only organizers report events."))
    event = Event(organizer=organizer, status=EventStatus.DRAFT, **fields)
    event.full_clean()
    event.save()
    return event


@transaction.atomic
def event_update(*, event: Event, by, **fields) -> Event:
    """Change an event's details; an admin changing a submitted event's rated details has its lists recomputed."""
    event = _locked(event)
    _require_editable(event, by)
    before = event_rated_fields(event=event)
    for name, value in fields.items():
        setattr(event, name, value)
    event.full_clean()
    event.save()
    kinds = event_change_kinds(before=before, after=event_rated_fields(event=event))
    results_changed_send(kinds=kinds, reason=f"{event} changed", requested_by=by)
    return event


@transaction.atomic
def event_deletable_by(*, event: Event, user) -> bool:
    """Organizers may delete their drafts; a submitted event is removed by an admin in the admin site."""
    return event.status == EventStatus.DRAFT and event_editable_by(event=event, user=user)


def event_delete(*, event: Event, by) -> None:
    event = _locked(event)
    if not event_deletable_by(event=event, user=by):
        raise PermissionDenied(ONLY_DRAFTS_DELETED)
    pending = _pending_players_of(event)
    event.delete()
    _pending_players_prune(pending)  # the players only this draft named go with it


def _too_many_new_players(count: int) -> str:
    return _(
        "these results register %(count)s new players; one upload registers at most %(limit)s. "
        "Upload the results in parts (a few rounds at a time), or ask an admin to import the players first"
    ) % {"count": count, "limit": NEW_PLAYERS_PER_UPLOAD}


def _keep_stored_players_and_teams(check: EventResultsCheck) -> None:
    """Players and teams already stored keep their details: organizers add people, only admins change them."""
    bundle = check.bundle
    stored = set(
        Player.objects.filter(membership_number__in=list(bundle.players)).values_list("membership_number", flat=True)
    )
    for number in stored:
        del bundle.players[number]
    bundle.registered_players |= stored
    keys = {ref: team_member_key(record.members) for ref, record in bundle.teams.items()}
    stored_teams = set(Team.objects.filter(member_key__in=list(keys.values())).values_list("member_key", flat=True))
    for ref, record in bundle.teams.items():
        if keys[ref] in stored_teams:
            record.name = ""  # the writer renames a stored team only when a name is given


def results_refs(bundle: ValidBundle) -> set[str]:
    """Every player or team id the results' matches and standings name."""
    refs = set()
    for rows in bundle.matches.values():
        refs.update(ref for _, _, ref1, ref2, *_ in rows for ref in (ref1, ref2) if ref)
    for rows in bundle.standings.values():
        refs.update(ref for _, ref, *_ in rows)
    return refs


def _drop_what_nobody_plays(check: EventResultsCheck) -> None:
    """Players and teams listed but absent from the results are not registered."""
    bundle = check.bundle
    refs = results_refs(bundle)
    bundle.teams = {ref: record for ref, record in bundle.teams.items() if ref in refs}
    numbers = refs | {member for record in bundle.teams.values() for member in record.members}
    bundle.players = {number: record for number, record in bundle.players.items() if number in numbers}


@transaction.atomic
def event_results_replace(
    *,
    event: Event,
    by,
    files: dict[str, bytes] | None = None,
    rows: dict[str, list[Row]] | None = None,
    new_players: dict[str, tuple[str, str]] | None = None,
) -> ImportReport:
    """Make `files` (the importer's files, without events.csv, as uploaded) or `rows` (those files' rows, as
    typed in a form: organize.results) the event's results.

    Checked first, by the importer's rules; raises ResultsInvalid with every
    error and writes nothing when there is one. Stored matches and standings
    are matched as the importer matches them: only what differs is written.
    New players (in players.csv, or `new_players`: number -> (name, country))
    are registered. A submitted event (admins only) is queued for a recompute.
    """
    event = _locked(event)
    _require_editable(event, by)
    check = event_results_check(event=event, files=files, rows=rows, new_players=new_players)
    if not check.valid:
        raise ResultsInvalid(check)
    _keep_stored_players_and_teams(check)
    _drop_what_nobody_plays(check)
    if len(check.bundle.players) > NEW_PLAYERS_PER_UPLOAD:
        check.errors.append(BundleError("players.csv", 0, "-", _too_many_new_players(len(check.bundle.players))))
        raise ResultsInvalid(check)
    # An admin changing a submitted event's results corrects them: each change is logged (SPEC 5).
    corrections = ImportCorrections(
        reason=f"results of {event} replaced on its organizer page", by=by, source=CorrectionSource.ADMIN
    )
    # A draft's new players stay private until it is submitted; an admin's change of a submitted event
    # publishes them at once.
    writer = BundleWriter(
        check.bundle,
        dry_run=False,
        organizer=event.organizer,
        corrections=corrections,
        new_players_public=event.status != EventStatus.DRAFT,
    )
    pending_before = _pending_players_of(event)
    try:
        with transaction.atomic():
            player_ids = writer.write_players()
    except IntegrityError:
        # Two uploads registering the same new number at once: the other one's player is there now.
        check.errors.append(BundleError("players.csv", 0, "-", str(REGISTERED_MEANWHILE)))
        raise RegisteredMeanwhile(check) from None
    team_ids = writer.write_teams(player_ids)
    writer.write_results({event_ref(event): (event.pk, True)}, player_ids, team_ids)
    _pending_players_prune(pending_before)  # those the new results no longer name
    report = writer.report
    report.affected = writer.affected_categories()
    if report.affected:  # a draft's kinds are empty: it is rated once submitted
        results_changed_send(kinds=event_kinds(events=[event]), reason=f"{event} corrected", requested_by=by)
    return report


@transaction.atomic
def event_submit(*, event: Event, by) -> list[RecomputeRun]:
    """Submit a draft for rating; returns the recompute runs now queued for its categories.

    The stored results are checked again against the event's details as they
    are now (the number of players may have been edited since the upload).
    Submitting asks for the recomputes (events.signals.results_changed).
    """
    event = _locked(event)
    _require_editable(event, by)
    if event.status != EventStatus.DRAFT:
        raise ValidationError(_("This event has been submitted already."))
    if event.date > timezone.localdate():
        raise ValidationError(_("An event is submitted once it has been played: its date is in the future."))
    check = event_results_check(event=event, rows=stored_results(event))
    if not check.valid:
        raise ResultsInvalid(check)
    event.status = EventStatus.SUBMITTED
    event.save(update_fields=["status"])
    results_changed_send(kinds=event_kinds(events=[event]), reason=f"{event} changed", requested_by=by)
    Player.objects.filter(_players_named(event), public=False).update(public=True)
    categories = categories_rating(format=event.format, team_size=event.team_size)
    return list(RecomputeRun.objects.filter(category__in=categories, status=RecomputeStatus.QUEUED))
