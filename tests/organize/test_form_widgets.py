"""Boxes, choices and checkboxes written in Python (lib.forms, lib.admin_lists): the same HTML as Django's widget
templates and the admin's own."""

import pytest
from django import forms
from django.contrib import admin
from django.contrib.admin import ModelAdmin
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.admin_lists import QuickActionCheckbox
from lib.forms import PLAYER_BOX, FixedTextInput, QuickCheckboxInput, QuickSelect, QuickTextInput
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

    assert ours.render("s-0-final", value, attrs) == django.render("s-0-final", value, attrs)


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
