"""Forms of appeals and corrections: they check the input; the services decide and write."""

import re

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django_countries import countries

from corrections.models import participant_name
from corrections.services import NewMatch, Result, new_match_problems
from events.models import Event, Match
from lib.forms import PLAYER_BOX, QuickSelect
from players.models import Participant, Player, Team, team_member_key
from players.search import suggested_number

MAX_GAMES = 99
REASON_MAX = 2000


def games_field(label) -> forms.IntegerField:
    return forms.IntegerField(
        label=label, min_value=0, max_value=MAX_GAMES, widget=forms.NumberInput(attrs={"size": 3})
    )


def reason_field(label=None, help_text=None) -> forms.CharField:
    # `is None`, not `or`: the truth of a lazy text would translate it at import.
    return forms.CharField(
        label=gettext_lazy("Reason") if label is None else label,
        max_length=REASON_MAX,
        help_text=gettext_lazy("Shown in the public correction log.") if help_text is None else help_text,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class AppealForm(forms.Form):
    """What the player says happened, from their own side of the match."""

    own_games = games_field(gettext_lazy("Games you won"))
    opponent_games = games_field(gettext_lazy("Games your opponent won"))
    draws = games_field(gettext_lazy("Games drawn"))
    explanation = forms.CharField(
        label=gettext_lazy("What happened"),
        max_length=REASON_MAX,
        help_text=gettext_lazy("Why the recorded result is wrong: the admins decide on what you write here."),
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    def __init__(self, *args, match: Match, side: int, **kwargs):
        own, other = (match.games1, match.games2) if side == 1 else (match.games2, match.games1)
        kwargs.setdefault("initial", {"own_games": own, "opponent_games": other, "draws": match.draws})
        super().__init__(*args, **kwargs)
        opponent = match.participant2 if side == 1 else match.participant1
        self.fields["opponent_games"].label = _("Games %(name)s won") % {"name": participant_name(opponent)}


class DecisionForm(forms.Form):
    """An admin's decision on an appeal: the button pressed, and why."""

    ACCEPT, REJECT = "accept", "reject"

    decision = forms.ChoiceField(choices=[(ACCEPT, "Accept"), (REJECT, "Reject")], widget=forms.HiddenInput)
    reason = reason_field(
        help_text=gettext_lazy("Shown to the player; an accepted appeal's reason goes to the public correction log.")
    )


class _ExpectedResultForm(forms.Form):
    """The result the admin is looking at, carried along so a change made meanwhile is noticed."""

    was_games1 = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    was_games2 = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    was_draws = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    was_elimination = forms.BooleanField(widget=forms.HiddenInput, required=False)

    @staticmethod
    def initial_for(match: Match) -> dict:
        return {
            "was_games1": match.games1,
            "was_games2": match.games2,
            "was_draws": match.draws,
            "was_elimination": match.elimination,
        }

    def expected(self) -> Result:
        data = self.cleaned_data
        return Result(data["was_games1"], data["was_games2"], data["was_draws"], data["was_elimination"])


class MatchCorrectForm(_ExpectedResultForm):
    games1 = games_field(gettext_lazy("Games won by side 1"))
    games2 = games_field(gettext_lazy("Games won by side 2"))
    draws = games_field(gettext_lazy("Games drawn"))
    elimination = forms.BooleanField(label=gettext_lazy("Elimination round"), required=False)
    reason = reason_field()

    field_order = ["games1", "games2", "draws", "elimination", "reason"]

    def __init__(self, *args, match: Match, **kwargs):
        kwargs.setdefault(
            "initial",
            {
                **self.initial_for(match),
                "games1": match.games1,
                "games2": match.games2,
                "draws": match.draws,
                "elimination": match.elimination,
            },
        )
        super().__init__(*args, **kwargs)
        self.match = match
        self.fields["games1"].label = _("Games won by %(name)s") % {"name": participant_name(match.participant1)}
        self.fields["games2"].label = _("Games won by %(name)s") % {"name": participant_name(match.participant2)}

    def clean(self):
        data = super().clean()
        if self.match.is_bye:
            raise forms.ValidationError(_("A bye has no result to correct: it is never rated. Remove it instead."))
        if data.get("elimination") and "games1" in data and data.get("games1") == data.get("games2"):
            self.add_error("games2", _("An elimination-round match cannot be a draw: one side must win more games."))
        return data

    def result(self) -> Result:
        data = self.cleaned_data
        return Result(data["games1"], data["games2"], data["draws"], data["elimination"])


class MatchRemoveForm(_ExpectedResultForm):
    reason = reason_field()

    def __init__(self, *args, match: Match, **kwargs):
        kwargs.setdefault("initial", self.initial_for(match))
        super().__init__(*args, **kwargs)


SIDE_HELP = {
    1: gettext_lazy("The player's membership number."),
    3: gettext_lazy("The team's members' membership numbers, e.g. 1001 1002 1003."),
}


class MatchAddForm(forms.Form):
    round = forms.IntegerField(label=pgettext_lazy("noun", "Round"), min_value=1, max_value=32767)
    side1 = forms.CharField(label=gettext_lazy("Side 1"), max_length=120)
    side2 = forms.CharField(label=gettext_lazy("Side 2"), max_length=120)
    games1 = games_field(gettext_lazy("Games won by side 1"))
    games2 = games_field(gettext_lazy("Games won by side 2"))
    draws = games_field(gettext_lazy("Games drawn"))
    elimination = forms.BooleanField(label=gettext_lazy("Elimination round"), required=False)
    reason = reason_field()

    def __init__(self, *args, event: Event, **kwargs):
        kwargs.setdefault("initial", {"games1": 0, "games2": 0, "draws": 0})
        super().__init__(*args, **kwargs)
        self.event = event
        help_text = SIDE_HELP.get(event.team_size, SIDE_HELP[3])
        self.fields["side1"].help_text = self.fields["side2"].help_text = help_text

    def _participant(self, name: str) -> Participant | None:
        text = self.cleaned_data[name].strip()
        if self.event.team_size == 1:
            player = Player.objects.select_related("participant").filter(membership_number=text).first()
            if player is None:
                raise forms.ValidationError(_("No player has the membership number “%(number)s”.") % {"number": text})
            return player.participant
        numbers = [number for number in re.split(r"[\s,+/]+", text) if number]
        team = Team.objects.select_related("participant").filter(member_key=team_member_key(numbers)).first()
        if team is None:
            raise forms.ValidationError(
                _("No team has exactly the members %(numbers)s.") % {"numbers": ", ".join(numbers) or _("(none)")}
            )
        return team.participant

    def clean_side1(self):
        return self._participant("side1")

    def clean_side2(self):
        return self._participant("side2")

    def new_match(self) -> NewMatch:
        data = self.cleaned_data
        result = Result(data["games1"], data["games2"], data["draws"], data["elimination"])
        return NewMatch(self.event, data["round"], data["side1"], data["side2"], result)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        names = {"participant1": "side1", "participant2": "side2", "games2": "games2"}
        for field, problem in new_match_problems(self.new_match()).items():
            self.add_error(names[field], problem)
        return data


def _country_choices() -> list[tuple[str, str]]:
    """No country, then every country by its name in the visitor's language (so, built for each form)."""
    return [("", _("No country")), *countries]


class DetailRequestForm(forms.Form):
    """A linked player's own details as they should be, and why."""

    name = forms.CharField(
        label=gettext_lazy("Name"), max_length=200, help_text=gettext_lazy("As it should appear in the lists.")
    )
    country = forms.ChoiceField(
        label=gettext_lazy("Country"),
        choices=_country_choices,
        required=False,
        widget=QuickSelect,  # 250 choices
    )
    region = forms.CharField(
        label=gettext_lazy("Region"),
        max_length=6,
        required=False,
        help_text=gettext_lazy("Optional: the ISO 3166-2 code of your region, e.g. DE-BY."),
    )
    explanation = forms.CharField(
        label=gettext_lazy("Why"),
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("E.g. a misspelt name, or the country you live and play in now. An admin reads it."),
    )


class MergeForm(forms.Form):
    """Two numbers of one person: the one kept and the one given up (a number, or a name picked from the
    suggestions), and why."""

    kept = forms.CharField(
        label=gettext_lazy("Number kept"), max_length=250, help_text=gettext_lazy("The record that stays.")
    )
    merged = forms.CharField(
        label=gettext_lazy("Number given up"),
        max_length=250,
        help_text=gettext_lazy("Its matches move to the one kept."),
    )
    reason = forms.CharField(
        label=gettext_lazy("Why they are one person"), max_length=1000, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("kept", "merged"):
            self.fields[name].widget.attrs.update(PLAYER_BOX)

    def _player(self, field: str) -> Player:
        number = suggested_number(self.cleaned_data[field])
        player = Player.objects.public().filter(membership_number=number.strip()).first()
        if player is None:
            raise forms.ValidationError(_("No player has the membership number “%(number)s”.") % {"number": number})
        return player

    def clean_kept(self) -> Player:
        return self._player("kept")

    def clean_merged(self) -> Player:
        return self._player("merged")
