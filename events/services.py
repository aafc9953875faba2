"""Saying which results changed (events.signals.results_changed), in the shapes the senders have at hand."""

from datetime import date

from events.models import Event, EventStatus
from events.signals import results_changed

# (format, team size) -> the earliest date whose results changed.
Kinds = dict[tuple[str, int], date]

# The fields of an event that its ratings depend on: a change to any other (its name, its city) rates nothing again.
RATED_FIELDS = ("format", "team_size", "date", "status", "k", "player_count", "level2_judge", "level")


def event_rated_fields(*, event: Event) -> dict:
    """The event's rated fields as they are on the instance (to compare with them after a change)."""
    return {name: getattr(event, name) for name in RATED_FIELDS}


def event_rated_fields_stored(*, event_id: int) -> dict | None:
    """The event's rated fields as they are in the database (None: no such event)."""
    return Event.objects.filter(pk=event_id).values(*RATED_FIELDS).first()


def kinds_merge(*many: Kinds) -> Kinds:
    """One map of kinds, each from the earliest of its dates."""
    merged: Kinds = {}
    for kinds in many:
        for kind, day in kinds.items():
            if kind not in merged or day < merged[kind]:
                merged[kind] = day
    return merged


def _rated_kind(fields: dict | None) -> Kinds:
    if fields is None or fields["status"] == EventStatus.DRAFT:
        return {}
    return {(fields["format"], fields["team_size"]): fields["date"]}


def event_kinds(*, events) -> Kinds:
    """The kinds of these events' results, from each kind's earliest date; drafts count for nothing."""
    return kinds_merge(*(_rated_kind(event_rated_fields(event=event)) for event in events))


def event_change_kinds(*, before: dict | None, after: dict | None) -> Kinds:
    """The kinds an event's change touches, given its rated fields before and after (None: added, removed).

    An event moved to another format or date changes both its old and its new
    kind, from the earlier of its two dates.
    """
    if before is None or after is None:
        return _rated_kind(before or after)
    if before == after:
        return {}
    since = min(before["date"], after["date"])
    return dict.fromkeys(kinds_merge(_rated_kind(before), _rated_kind(after)), since)


def results_changed_send(*, kinds: Kinds, reason: str, requested_by=None) -> list:
    """Tell the layers above that results of these kinds changed; nothing is sent for no kinds.

    Call it inside the transaction that makes the change, so what the receivers
    write (a recompute run) is committed, or rolled back, with it. Returns what
    the receivers return, one list: the recompute runs the ratings app queued.
    """
    if not kinds:
        return []
    responses = results_changed.send(sender=Event, kinds=kinds, reason=reason, requested_by=requested_by)
    return [item for _, answer in responses for item in answer or ()]
