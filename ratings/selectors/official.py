"""Reads of the official lists (OfficialList): the archive of a list, and one official list a page at a time."""

from datetime import date

from django.db.models import F, OuterRef, QuerySet, Subquery, Value
from django.db.models.fields import IntegerField

from ratings.models import Category, OfficialList, SnapshotRating
from ratings.selectors.rankings import EXPORT_COLUMNS, ListRows, PositionSeek


def official_lists(*, category: Category) -> QuerySet[OfficialList]:
    """The category's official lists, newest first, each with its leader (`leader_name`, `leader_rating`)."""
    leader = SnapshotRating.objects.filter(snapshot_id=OuterRef("snapshot_id"), ranked=True, world_position=1)
    return (
        OfficialList.objects.filter(category=category)
        .annotate(leader_name=Subquery(leader.values("name")[:1]), leader_rating=Subquery(leader.values("rating")[:1]))
        .order_by("-as_of")
    )


def official_list_get(*, category: Category, as_of: date) -> OfficialList | None:
    return OfficialList.objects.filter(category=category, as_of=as_of).first()


def official_list_previous(*, official: OfficialList) -> OfficialList | None:
    """The official list before it: its movement is counted from there."""
    return (
        OfficialList.objects.filter(category_id=official.category_id, as_of__lt=official.as_of)
        .order_by("-as_of")
        .first()
    )


def official_list_rows(*, official: OfficialList, previous: OfficialList | None) -> ListRows:
    """The official list's ranked rows in world order, with `rank` and `previous_rank` (in the list before it)."""
    rows = SnapshotRating.objects.filter(snapshot_id=official.snapshot_id, ranked=True)
    if previous is None:
        previous_rank = Value(None, output_field=IntegerField())
    else:
        before = SnapshotRating.objects.filter(
            snapshot_id=previous.snapshot_id, ranked=True, participant_id=OuterRef("participant_id")
        )
        previous_rank = Subquery(before.values("world_rank")[:1])
    annotations = {"rank": F("world_rank"), "previous_rank": previous_rank}
    return ListRows(rows, annotations=annotations, seek=PositionSeek("world_position"))


def official_export_rows(*, official: OfficialList):
    """The whole official list as tuples in EXPORT_COLUMNS order (as a ranking's download), streamed."""
    rows = official_list_rows(official=official, previous=None).queryset()
    return rows.values_list(*EXPORT_COLUMNS.values()).iterator(chunk_size=2000)
