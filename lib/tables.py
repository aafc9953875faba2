"""What every table of the site shares (django-tables2): the template, paging and the cells' labels."""

import functools

from django.core.paginator import EmptyPage
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django_countries.fields import Country

TABLE_TEMPLATE = "players/table.html"


def configure(request, table, *, per_page: int):
    """Sort and paginate `table` from the request, like django-tables2's RequestConfig, at a fixed page size.

    A visitor's ?per_page= is not honoured: a page never grows to a whole history or the whole player list.
    """
    table.request = request
    order_by = request.GET.getlist(table.prefixed_order_by_field)
    if order_by and table.orderable:
        table.order_by = order_by
    try:
        page = int(request.GET.get(table.prefixed_page_field, 1))
    except ValueError:
        page = 1
    try:
        table.paginate(page=page, per_page=per_page)
    except EmptyPage:  # past the end (or before the start): the last page
        table.page = table.paginator.page(table.paginator.num_pages)
    return table


def cell(label: str, css: str = "", short: str = "") -> dict:
    """Column attrs: `data-label` (or the shorter `data-short`) names the value when a row is a card on a phone."""
    td = {"data-label": label, "data-short": short or label}
    if css:
        td["class"] = css
    return {"td": td, "th": {"class": css} if css else {}}


def country_label(country):
    """Flag and name of a django-countries Country; '—' when unknown."""
    if not country:
        return "—"
    if country.flag_url is None and country.custom_countries is None:  # a plain CountryField's: the same for all
        return _country_label(country.code, get_language())
    return _label(country.flag, country.name)


@functools.lru_cache(maxsize=2048)
def _country_label(code: str, language: str | None) -> SafeString:
    """Memoised by code and language: the name goes through gettext and the flag through urljoin, a tenth of the
    time of a page of 50 events or players. Neither depends on anything else that changes while the site runs."""
    country = Country(code)
    return _label(country.flag, country.name)


def _label(flag: str, name: str) -> SafeString:
    return format_html(
        '<span class="country"><img class="flag" src="{}" alt="" width="16" height="11"> {}</span>', flag, name
    )
