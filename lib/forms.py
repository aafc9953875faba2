"""Helpers for forms."""

from django.core.exceptions import ValidationError
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy


def errors_to_form(form, error: ValidationError) -> None:
    """A service's ValidationError shown on the form: on its field when it names one, above the form otherwise."""
    if hasattr(error, "error_dict"):
        for field, problems in error.error_dict.items():
            form.add_error(field if field in form.fields else None, problems)
    else:
        form.add_error(None, error)


# A box where a player is named: a membership number, or a name picked from the suggestions as it is typed
# ("Name (number)": players.search.suggested_number reads the number back); static/js/suggest.js drives it.
PLAYER_BOX = {
    "autocomplete": "off",
    "data-suggest": reverse_lazy("players:suggest"),
    "placeholder": gettext_lazy("number or name"),
}
