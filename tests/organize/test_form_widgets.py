"""Boxes, choices and checkboxes written in Python (lib.forms, lib.admin_lists): the same HTML as Django's widget
templates and the admin's own."""

import pytest
from django import forms
from django.contrib import admin
from django.contrib.admin import ModelAdmin
from django.utils import translation
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.admin_lists import QuickActionCheckbox
from lib.forms import PLAYER_BOX, FixedTextInput, QuickCheckboxInput, QuickSelect, QuickTextInput
from organize.forms import MatchRowForm, StandingRowForm
from players.models import Player
from tests.factories import PlayerFactory

typed = st.one_of(st.none(), st.text(), st.integers())
attribute_names = st.sampled_from(["id", "size", "placeholder", "inputmode", "required", "disabled", "data-x"])
attribute_values = st.one_of(st.booleans(), st.text(), st.integers())
attributes = st.dictionaries(attribute_names, attribute_values, max_size=5)


@settings(deadline=None)  # the first example loads Django's templates
@given(value=typed, attrs=attributes)
def test_a_text_box_is_written_as_djangos_template_writes_it(value, attrs):
    ours, django = QuickTextInput(attrs=dict(PLAYER_BOX)), forms.TextInput(attrs=dict(PLAYER_BOX))

    assert ours.render("m-3-player1", value, attrs) == django.render("m-3-player1", value, attrs)


@settings(deadline=None)
@given(value=typed, own=attributes, attrs=attributes, languages=st.permutations(["en", "de"]))
def test_a_box_of_fixed_attributes_is_written_as_djangos_template_writes_it(value, own, attrs, languages):
    """Its own attributes written once per language (the placeholder translated), those given for each box."""
    ours, django = FixedTextInput(attrs={**PLAYER_BOX, **own}), forms.TextInput(attrs={**PLAYER_BOX, **own})

    for language in languages:
        with translation.override(language):
            for name in ("m-3-player1", "m-4-player1"):
                assert ours.render(name, value, attrs) == django.render(name, value, attrs)


def test_a_fixed_box_copied_by_its_field_writes_the_fields_attributes_too():
    box = FixedTextInput(attrs={"size": 3})
    box.render("before", "1")  # written once before the field copies it

    field = forms.CharField(widget=box, max_length=5)

    assert field.widget.render("games1", "2") == '<input type="text" name="games1" value="2" size="3" maxlength="5">'


@settings(deadline=None)
@given(
    value=typed,
    attrs=attributes,
    choices=st.lists(st.tuples(st.text(), st.text()), max_size=4, unique_by=lambda choice: choice[0]),
)
def test_a_choice_is_written_as_djangos_template_writes_it(value, attrs, choices):
    ours, django = QuickSelect(choices=choices), forms.Select(choices=choices)

    for chosen in [value, *(choice_value for choice_value, _ in choices)]:  # each option selected in turn
        assert ours.render("s-0-final", chosen, attrs) == django.render("s-0-final", chosen, attrs)


def test_a_choices_labels_are_written_in_the_language_of_each_page():
    choices = [("", gettext_lazy("Not a finalist")), ("winner", gettext_lazy("Winner"))]
    ours, django = QuickSelect(choices=choices), forms.Select(choices=choices)

    for language in ["de", "en", "de"]:
        with translation.override(language):
            assert ours.render("s-0-final", "winner") == django.render("s-0-final", "winner")
    with translation.override("de"):
        assert ">Sieger</option>" in ours.render("s-0-final", "")


def test_a_choice_field_given_new_choices_writes_them():
    field = forms.ChoiceField(widget=QuickSelect, choices=[("a", "A")])
    field.widget.render("f", "a")

    field.choices = [("b", "B & C")]

    written = field.widget.render("f", "b")

    assert written == '<select name="f">\n  <option value="b" selected>B &amp; C</option>\n\n</select>'


def test_choices_in_groups_are_left_to_djangos_template():
    choices = [("Places", [("winner", "Winner"), ("finalist", "Finalist")])]

    assert QuickSelect(choices=choices).render("f", "winner") == forms.Select(choices=choices).render("f", "winner")


@settings(deadline=None)
@given(value=st.one_of(typed, st.booleans()), attrs=attributes)
def test_a_checkbox_is_written_as_djangos_template_writes_it(value, attrs):
    ours, django = QuickCheckboxInput(attrs=attrs), forms.CheckboxInput(attrs=attrs)

    assert ours.render("_selected_action", value) == django.render("_selected_action", value)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "de"])
def test_an_admin_rows_action_checkbox_is_the_admins_own(language):
    player = PlayerFactory(name='Zoë "Z" <Ziegler>')
    model_admin = admin.site._registry[Player]

    with translation.override(language):
        ours = model_admin.action_checkbox(player)
        djangos = ModelAdmin.action_checkbox(model_admin, player)

    assert isinstance(model_admin, QuickActionCheckbox) and ours == djangos
    assert "&lt;Ziegler&gt;" in ours  # the player's name escaped in its label


@pytest.mark.parametrize("form_class", [MatchRowForm, StandingRowForm])
def test_the_rows_of_a_results_form_share_their_fields_each_in_a_dict_of_its_own(form_class):
    """Hundreds of rows a page: their fields are made once, not copied for each row (the page's largest cost)."""
    first, second = form_class(), form_class()

    assert first.fields is not second.fields
    assert all(first.fields[name] is second.fields[name] for name in form_class.base_fields)
    assert list(first.fields) == list(form_class.base_fields)
