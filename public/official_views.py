"""The official lists of a category (SPEC 4): the archive of every month's list, and each one with its movement
since the one before and its downloads."""

from datetime import date

from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import render

from public.ranking_tables import RankingTable
from public.ranking_views import category_read, export_response, paginate
from ratings.models import Category
from ratings.selectors import official as selectors


def official_archive(request, slug):
    category = category_read(request, slug)
    return render(
        request,
        "ratings/official_archive.html",
        {"category": category, "official_lists": list(selectors.official_lists(category=category))},
    )


def official_detail(request, slug, as_of):
    category = category_read(request, slug)
    try:
        day = date.fromisoformat(as_of)
    except ValueError:
        raise Http404(f"{as_of!r} is not a date (YYYY-MM-DD).") from None
    official = selectors.official_list_get(category=category, as_of=day)
    if official is None:
        raise Http404(f"No official {category.name} list of {as_of}.")
    export = request.GET.get("_export")
    if export:
        return _export_response(category, official, export)
    previous = selectors.official_list_previous(official=official)
    table = RankingTable(
        selectors.official_list_rows(official=official, previous=previous),
        category=category,
        previous_date=previous.as_of if previous else None,
        movement=previous is not None,
        order_by=request.GET.get("sort"),
    )
    paginate(table, request)
    newer = selectors.official_lists(category=category).filter(as_of__gt=day).order_by("as_of").first()
    return render(
        request,
        "ratings/official_list.html",
        {"category": category, "official": official, "previous": previous, "newer": newer, "table": table},
    )


def _export_response(category: Category, official, kind: str):
    if kind not in ("csv", "json"):
        return HttpResponseBadRequest("_export: csv or json\n", content_type="text/plain; charset=utf-8")
    name = f"{category.slug}-official-{official.as_of.isoformat()}"
    return export_response(selectors.official_export_rows(official=official), kind, name)
