"""The admin's result list (lib.admin_result_list): each cell of every list of the site is the HTML Django's own
items_for_result writes, whatever the list's filters, sort, language or popup; a list of editable columns is left to
Django; and the page shows them."""

import pytest
from django.contrib import admin
from django.contrib.admin.templatetags.admin_list import items_for_result
from django.utils import translation

from lib.admin_result_list import quick_results
from tests.corrections.test_admin import one_row_of_every_kind  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

LISTS = sorted(admin.site._registry, key=lambda model: model._meta.label)
ASKED = {
    "as it opens": {},
    "sorted by its second column, descending": {"o": "-2"},
    "searched (its filters preserved in the links)": {"q": "a"},
    "as a popup": {"_popup": "1"},
}


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("asked", ASKED.values(), ids=ASKED.keys())
@pytest.mark.parametrize("model", LISTS, ids=lambda model: model._meta.label)
def test_every_cell_of_every_list_is_djangos_own(admin_client, one_row_of_every_kind, model, asked, language):  # noqa: F811
    address = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
    model_admin = admin.site._registry[model]
    if "q" in asked and not model_admin.search_fields:
        pytest.skip("no search on this list")
    with translation.override(language):
        response = admin_client.get(address, asked, headers={"accept-language": language})
        assert response.status_code == 200
        cl = response.context["cl"]
        if cl.formset:  # editable columns: Django's own tag writes the list
            return
        django = [[str(cell) for cell in items_for_result(cl, row, None)] for row in cl.result_list]
        ours = [[str(cell) for cell in row] for row in quick_results(cl)]

    assert ours == django
    html = response.content.decode()
    assert all(cell in html for row in ours for cell in row)


def test_the_lists_cover_links_choices_booleans_dates_numbers_and_empty_values(admin_client, one_row_of_every_kind):  # noqa: F811
    """The comparison above means something only if the site's lists have these kinds of cell."""
    html = "".join(
        admin_client.get(f"/admin/{model._meta.app_label}/{model._meta.model_name}/").content.decode()
        for model in LISTS
    )

    for kind in (
        '<th class="field-',
        ' nowrap"',
        "icon-yes.svg",
        "icon-no.svg",
        'class="action-checkbox"',
        "-</td>",
    ):
        assert kind in html, kind
