"""Helpers for forms."""

import functools
from functools import partial

from django import forms
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy

from lib.escaping import escaped


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
    "data-suggest": lazy(functools.cache(partial(reverse, "players:suggest")), str)(),  # once: a results form has 900
    "placeholder": gettext_lazy("number or name"),
}


# Widgets written out in Python. Django renders each widget through its template, about half a millisecond a
# box: a results form of 900 rows (4,500 boxes) took two seconds to render. These write the same HTML as
# Django's templates (input.html, select.html, select_option.html and attrs.html), escaped the same way.


def _attributes(attrs: dict) -> str:
    """attrs.html: each attribute in order, a True one bare, a False one left out."""
    return "".join(
        f" {escaped(name)}" if value is True else f' {escaped(name)}="{escaped(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


class _WrittenInput:
    """render() of an <input> widget, as input.html writes it (checkbox.html includes input.html)."""

    def render(self, name, value, attrs=None, renderer=None):
        widget = self.get_context(name, value, attrs)["widget"]
        return _input(widget["type"], widget["name"], widget["value"], _attributes(widget["attrs"]))


def _input(kind: str, name: str, value, attributes: str) -> str:
    """input.html's <input>, its attributes written out already (_attributes)."""
    shown = "" if value is None else f' value="{escaped(value)}"'
    return mark_safe(f'<input type="{escaped(kind)}" name="{escaped(name)}"{shown}{attributes}>')  # all escaped


class QuickTextInput(_WrittenInput, forms.TextInput):
    pass


class QuickCheckboxInput(_WrittenInput, forms.CheckboxInput):
    pass


class FixedTextInput(QuickTextInput):
    """A text box whose own attributes are never changed once it is made (the box of a field that every row of
    a form of many rows shares): written out once per language, not escaped again for each of 900 rows."""

    def __init__(self, attrs=None):
        super().__init__(attrs)
        self._written: dict[str | None, str] = {}  # language -> the box's own attributes as HTML

    def __deepcopy__(self, memo):
        # A field copies its widget and then adds its own attributes (maxlength): the copy writes its own.
        copied = super().__deepcopy__(memo)
        copied._written = {}
        return copied

    def render(self, name, value, attrs=None, renderer=None):
        given = attrs or {}
        if given.keys() & self.attrs.keys():  # an attribute of its own replaced for this box: written whole
            return super().render(name, value, attrs, renderer)
        language = get_language()
        own = self._written.get(language)
        if own is None:
            own = self._written[language] = _attributes(self.attrs)
        # The box's own attributes, then those given (Widget.build_attrs).
        return _input(self.input_type, name, self.format_value(value), own + _attributes(given))


class QuickSelect(forms.Select):
    """A <select> written as select.html writes it. Its options' labels are translated and escaped once per
    language while its choices stay the same list: a standings form of 900 rows translated 2,700 labels a page."""

    def __init__(self, attrs=None, choices=()):
        super().__init__(attrs, choices)
        self._labels: dict[str | None, tuple[object, list[tuple[str, str, str]]]] = {}  # language -> (choices, options)

    def __deepcopy__(self, memo):
        copied = super().__deepcopy__(memo)  # its choices copied: the copy writes its own labels
        copied._labels = {}
        return copied

    def render(self, name, value, attrs=None, renderer=None):
        options = self._written_options()
        if options is None:
            return self._render_through_context(name, value, attrs, renderer)
        chosen = self.format_value(value)
        written, selected = [], False
        for option_value, shown_value, label in options:
            # As optgroups(): only the first option of a chosen value is selected.
            mark = " selected" if not selected and option_value in chosen else ""
            selected = selected or bool(mark)
            written.append(f'\n  <option value="{shown_value}"{mark}>{label}</option>\n')
        attributes = _attributes(self.build_attrs(self.attrs, attrs))
        return mark_safe(f'<select name="{escaped(name)}"{attributes}>{"".join(written)}\n</select>')  # all escaped

    def _written_options(self) -> list[tuple[str, str, str]] | None:
        """Each option's value, then its value and label as written (escaped, the label translated); None for
        choices that are grouped, computed on each use (a callable's) or a multiple select's, written the slow
        way."""
        choices = self.choices
        if self.allow_multiple_selected or not isinstance(choices, list):
            return None
        language = get_language()
        kept = self._labels.get(language)
        if kept is not None and kept[0] is choices and len(kept[1]) == len(choices):
            return kept[1]
        if any(isinstance(label, (list, tuple)) for _, label in choices):
            return None
        # select_option.html writes the value through stringformat:'s' (None as "") and escapes both.
        texts = [("" if value is None else str(value), label) for value, label in choices]
        options = [(value, escaped(value), escaped(label)) for value, label in texts]
        self._labels[language] = (choices, options)
        return options

    def _render_through_context(self, name, value, attrs, renderer):
        widget = self.get_context(name, value, attrs)["widget"]
        if any(group_name for group_name, _, _ in widget["optgroups"]):
            return super().render(name, value, attrs, renderer)  # groups of options: Django's own template
        options = "".join(
            # select_option.html ends in a new line
            f'\n  <option value="{escaped(option["value"])}"{_attributes(option["attrs"])}>'
            f"{escaped(option['label'])}</option>\n"
            for _, group, _ in widget["optgroups"]
            for option in group
        )
        return mark_safe(f'<select name="{escaped(widget["name"])}"{_attributes(widget["attrs"])}>{options}\n</select>')
