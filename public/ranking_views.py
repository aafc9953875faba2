"""The ranking pages: an index of the categories and one list per category (SPEC 4)."""

from dataclasses import replace
from urllib.parse import urlencode

from django.core.files.storage import default_storage
from django.core.paginator import EmptyPage
from django.http import FileResponse, Http404, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils import timezone
from django.utils.http import http_date

from accounts.selectors import user_player
from lib.client_address import client_address
from players import geography
from public.conditional import categories_read, every_list_state, public_page_cached, ranking_state
from public.ranking_forms import UNRANKED, RankingFiltersForm
from public.ranking_tables import RankingTable
from ratings import exports
from ratings.models import Category
from ratings.selectors.distribution import list_distribution, participant_list_rating
from ratings.selectors.leaders import category_leaders
from ratings.selectors.places import category_places, country_name, place_name
from ratings.selectors.ranking_filters import RankingFilters
from ratings.selectors.rankings import new_past_date_wait, ranking_export_rows, ranking_page_rows
from ratings.snapshots import end_of_previous_month

PER_PAGE = 50
PER_PAGE_LIMITS = (1, 200)
INDEX_LEADERS = 3


def too_many_new_dates(request, wait: int):
    """429: this client asked for many past dates not written yet; when to try again, and what costs nothing."""
    response = render(request, "429.html", {"minutes": max(1, round(wait / 60))}, status=429)
    response["Retry-After"] = str(wait)
    return response


@public_page_cached(every_list_state)
def ranking_index(request):
    categories = categories_read(request)
    leaders = category_leaders(categories=categories, limit=INDEX_LEADERS)
    return render(
        request,
        "ratings/index.html",
        {"categories": [(category, leaders[category.pk]) for category in categories]},
    )


@public_page_cached(ranking_state)
def ranking_detail(request, slug):
    categories = categories_read(request)  # the tabs; the category is one of them
    category = category_read(request, slug)
    today = timezone.localdate()
    form = RankingFiltersForm(request.GET, today=today)
    export = request.GET.get("_export")
    if not form.is_valid():
        if export:
            return HttpResponseBadRequest(_error_text(form), content_type="text/plain; charset=utf-8")
        context = {"category": category, "category_tabs": _category_tabs(categories, None), "form": form}
        return render(request, "ratings/ranking.html", context, status=400)
    filters = form.filters()
    wait = new_past_date_wait(
        category=category, as_of=filters.as_of, client=client_address(request), unlimited=request.user.is_staff
    )
    if wait:
        return too_many_new_dates(request, wait)
    if export:
        return _export_response(category, filters, export, today)

    as_of = filters.as_of or today
    rows = ranking_page_rows(category=category, filters=filters)
    table = RankingTable(
        rows,
        category=category,
        unranked=filters.unranked,
        previous_date=end_of_previous_month(as_of),
        order_by=request.GET.get("sort"),
    )
    paginate(table, request)
    urls = _urls(
        category, filters, today, sort=request.GET.get("sort") if table.order_by else None, page=table.page.number
    )
    context = {
        "category": category,
        "category_tabs": _category_tabs(categories, filters),
        "form": form,
        "filters": filters,
        "near": rows.near,
        "table": table,
        "distribution": list_distribution(category=category, filters=filters),
        "own_rating": _own_rating(request, category, filters),
        "today": today,
        "as_of": as_of,
        "urls": urls,
        "canonical": request.build_absolute_uri(urls["canonical"]),
        # What each form of the page carries over from the current list.
        "keep_state": _kept(filters, "as_of", "list", "q"),
        "keep_place": _kept(filters, "continent", "country", "region", "list"),
        **_place_context(category, filters),
    }
    return render(request, "ratings/ranking.html", context)


def category_read(request, slug: str) -> Category:
    """The category of `slug`, from the request's categories (read once per request), or a 404."""
    category = next((each for each in categories_read(request) if each.slug == slug), None)
    if category is None:
        raise Http404(f"No rating category {slug!r}.")
    return category


def history_download(request, slug):
    """The list's whole history as a compressed CSV (ratings.services.downloads), as an attachment."""
    category = category_read(request, slug)
    if not category.history_file or not default_storage.exists(category.history_file):
        raise Http404(f"The {category.name} history file is not written yet: it is, within the hour.")
    response = FileResponse(
        default_storage.open(category.history_file, "rb"),
        as_attachment=True,
        filename=f"{category.slug}-history.csv.gz",
        content_type="application/gzip",
    )
    response["Last-Modified"] = http_date(category.history_file_built_at.timestamp())
    return response


def _own_rating(request, category: Category, filters: RankingFilters) -> float | None:
    """The signed-in viewer's rating in this list, when their account is linked to a player in it (marked on
    the histogram); None for everybody else."""
    player = user_player(user=request.user) if request.user.is_authenticated else None
    if player is None:
        return None
    return participant_list_rating(category=category, filters=filters, participant_id=player.participant_id)


def _place_context(category: Category, filters: RankingFilters) -> dict:
    """The names along World › continent › country › region, and the places the pickers offer."""
    places = category_places(category=category)
    continent = filters.continent or geography.continent_of(filters.country)
    return {
        "place": place_name(filters),
        "places": places,
        "regions": places.regions.get(filters.country, []),
        "continent": continent,
        "continent_name": geography.CONTINENT_NAMES.get(continent, ""),
        "country_name": country_name(filters.country),
        "region_name": geography.region_name(filters.region) if filters.region else "",
    }


def _kept(filters: RankingFilters, *names: str) -> list[tuple[str, str]]:
    return [(name, value) for name, value in list_params(filters).items() if name in names]


def _category_tabs(categories: list[Category], filters: RankingFilters | None) -> list[tuple[Category, str]]:
    """Each category's list, at the same place and date when it has players of its own (not teams)."""
    tabs = []
    for category in categories:
        if filters is None:
            tabs.append((category, f"/rankings/{category.slug}/"))
            continue
        kept = filters if category.team_size == 1 else replace(filters, continent="", country="", region="")
        tabs.append((category, list_url(category, replace(kept, search="", unranked=False))))
    return tabs


def paginate(table: RankingTable, request) -> None:
    """The page of a ranking table that ?page= and ?per_page= ask for (the official lists' pages too)."""
    per_page = _bounded(request.GET.get("per_page"), PER_PAGE, *PER_PAGE_LIMITS)
    page = _bounded(request.GET.get("page"), 1, 1, None)
    try:
        table.paginate(page=page, per_page=per_page)
    except EmptyPage:  # past the end (the list got shorter since the link was made): the last page
        table.paginate(page=table.paginator.num_pages, per_page=per_page)


def _bounded(text: str | None, default: int, low: int, high: int | None) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        return default
    return max(low, value if high is None else min(value, high))


def _error_text(form: RankingFiltersForm) -> str:
    return "\n".join(f"{field}: {message}" for field, messages in form.errors.items() for message in messages) + "\n"


# URLs: every state of the page is in its query string ----------------------------------------------------


def list_params(filters: RankingFilters, *, sort: str | None = None, page: int = 1) -> dict[str, str]:
    """The query string of a list, in a fixed order and without defaults, so equal lists have equal URLs."""
    params = {}
    if filters.level == "continent":
        params["continent"] = filters.continent
    if filters.country:
        params["country"] = filters.country
    if filters.region:
        params["region"] = filters.region
    if filters.as_of:
        params["as_of"] = filters.as_of.isoformat()
    if filters.unranked:
        params["list"] = UNRANKED
    if filters.search:
        params["q"] = filters.search
    if sort:
        params["sort"] = sort
    if page > 1:
        params["page"] = str(page)
    return params


def list_url(category: Category, filters: RankingFilters, **params) -> str:
    query = urlencode(list_params(filters, **params))
    return f"/rankings/{category.slug}/" + (f"?{query}" if query else "")


def _urls(category: Category, filters: RankingFilters, today, *, sort, page) -> dict:
    world = replace(filters, continent="", country="", region="")
    unfiltered = replace(filters, search="")
    urls = {
        "canonical": list_url(category, filters, sort=sort, page=page),
        "permalink": list_url(category, replace(filters, as_of=filters.as_of or today), sort=sort, page=page),
        "ranked": list_url(category, replace(filters, unranked=False)),
        "unranked": list_url(category, replace(filters, unranked=True)),
        "csv": _export_url(category, filters, "csv"),
        "json": _export_url(category, filters, "json"),
        "clear_search": list_url(category, unfiltered),
        "today": list_url(category, replace(filters, as_of=None)),
        "world": list_url(category, world),
    }
    continent = filters.continent or geography.continent_of(filters.country)
    if continent and filters.level != "continent":
        urls["continent"] = list_url(category, replace(world, continent=continent))
    if filters.region:
        urls["country"] = list_url(category, replace(world, country=filters.country))
    return urls


def _export_url(category: Category, filters: RankingFilters, kind: str) -> str:
    return f"/rankings/{category.slug}/?" + urlencode({**list_params(filters), "_export": kind})


def _export_response(category: Category, filters: RankingFilters, kind: str, today) -> HttpResponseBase:
    if kind not in ("csv", "json"):
        return HttpResponseBadRequest("_export: csv or json\n", content_type="text/plain; charset=utf-8")
    name = "-".join(
        part
        for part in (
            category.slug,
            filters.place.lower(),
            (filters.as_of or today).isoformat(),
            UNRANKED if filters.unranked else "ranked",
        )
        if part
    )
    return export_response(ranking_export_rows(category=category, filters=filters), kind, name)


def export_response(rows, kind: str, name: str) -> HttpResponseBase:
    """A list's rows (ratings.exports' columns) streamed as a `kind` ("csv" or "json") attachment `name`.`kind`."""
    if kind == "csv":
        response = StreamingHttpResponse(exports.csv_lines(rows), content_type="text/csv; charset=utf-8")
    else:
        response = StreamingHttpResponse(exports.json_chunks(rows), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{name}.{kind}"'
    return response
