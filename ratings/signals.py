"""Changes to results queue recomputes; the work itself runs in the job worker.

A run row is created in the same transaction as the change that needs it,
so a worker that sees the row also sees the change. Within one transaction
(an admin deleting an event and its matches, say) one run per category is
enough, and later changes only move its start earlier.
"""

import threading
from datetime import date

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from events.models import Event, EventStatus, Match, Standing
from ratings.models import RecomputeRun, RecomputeStatus
from ratings.services import categories_rating, recompute_enqueue

_queued_in_transaction = threading.local()


def _pending() -> dict:
    if not hasattr(_queued_in_transaction, "runs"):
        _queued_in_transaction.runs = {}
    return _queued_in_transaction.runs


def _forget_pending():
    _pending().clear()


def recompute_from(*, format: str, team_size: int, since: date, reason: str) -> None:
    """Queue (or widen) a recompute of every category an event of this kind feeds."""
    pending = _pending()
    for category in categories_rating(format=format, team_size=team_size):
        run = pending.get(category.pk)
        if run is not None:
            # After a rollback SQLite hands out the same id again: match the whole row.
            still_ours = RecomputeRun.objects.filter(
                pk=run.pk, category=category, queued_at=run.queued_at, status=RecomputeStatus.QUEUED
            )
            if still_ours.exists():
                if since < run.since:
                    run.since = since
                    still_ours.update(since=since)
                continue
        run = recompute_enqueue(category=category, since=since, reason=reason)
        if run is not None:
            pending[category.pk] = run
            transaction.on_commit(_forget_pending)


def _counts(event: Event) -> bool:
    return event.status != EventStatus.DRAFT


@receiver(pre_save, sender=Event)
def remember_rated_fields(sender, instance: Event, raw=False, **kwargs):
    instance._before_save = None
    if instance.pk and not raw:
        instance._before_save = (
            Event.objects.filter(pk=instance.pk)
            .values("format", "team_size", "date", "status", "k", "player_count", "level2_judge", "level")
            .first()
        )


@receiver(post_save, sender=Event)
def event_saved(sender, instance: Event, created=False, raw=False, **kwargs):
    if raw:
        return
    before = getattr(instance, "_before_save", None)
    if before is None:
        if _counts(instance):
            recompute_from(
                format=instance.format, team_size=instance.team_size, since=instance.date, reason=f"{instance} added"
            )
        return
    now = {name: getattr(instance, name) for name in before}
    if now == before or (before["status"] == EventStatus.DRAFT and not _counts(instance)):
        return
    since = min(before["date"], instance.date)
    reason = f"{instance} changed"
    if before["status"] != EventStatus.DRAFT:
        recompute_from(format=before["format"], team_size=before["team_size"], since=since, reason=reason)
    if _counts(instance):
        recompute_from(format=instance.format, team_size=instance.team_size, since=since, reason=reason)


@receiver(post_delete, sender=Event)
def event_deleted(sender, instance: Event, **kwargs):
    if _counts(instance):
        recompute_from(
            format=instance.format, team_size=instance.team_size, since=instance.date, reason=f"{instance} removed"
        )


@receiver(post_save, sender=Match)
@receiver(post_save, sender=Standing)
def result_saved(sender, instance, raw=False, **kwargs):
    if raw:
        return
    event = Event.objects.filter(pk=instance.event_id).first()
    if event and _counts(event):
        recompute_from(
            format=event.format, team_size=event.team_size, since=event.date, reason=f"result changed in {event}"
        )


@receiver(post_delete, sender=Match)
@receiver(post_delete, sender=Standing)
def result_deleted(sender, instance, **kwargs):
    event = Event.objects.filter(pk=instance.event_id).first()
    if event and _counts(event):  # when the event itself is being deleted, its own signal does the work
        recompute_from(
            format=event.format, team_size=event.team_size, since=event.date, reason=f"result removed in {event}"
        )
