"""Forms of the organizers' pages. Results themselves are checked by the importer's validator:
these forms only carry them (files, or rows typed in) and check what is theirs to check."""

import base64
import binascii
import re

from django import forms
from django.conf import settings
from django.core.validators import FileExtensionValidator
from django.template.defaultfilters import filesizeformat
from django.utils.translation import get_language, gettext_lazy, pgettext_lazy
from django.utils.translation import gettext as _
from django_countries import countries

from events.models import Event, FinalPlacing, KValue
from lib.forms import PLAYER_BOX, FixedTextInput, QuickSelect
from organize.importer.errors import Origin
from organize.importer.rows import Row
from organize.services import NEW_PLAYERS_PER_UPLOAD
from players.formatting import format_name
from players.models import MEMBERSHIP_NUMBER_PATTERN
from players.names import validate_name
from players.search import suggested_number
from players.selectors import player_matches
from ratings.models import Category, Ruleset
from ratings.selectors.history import categories_rating

MEMBERSHIP_NUMBER = re.compile(MEMBERSHIP_NUMBER_PATTERN)
K_HELP = gettext_lazy(
    "How far one match moves a rating in the DCI lists: new rating = old + K × (result − expected result). "
    "Both players use the event's K. V:EKN events do not use it."
)


def _rated_formats() -> list[tuple[str, str]]:
    formats = {code for category in Category.objects.exclude(ruleset=Ruleset.DERIVED) for code in category.format_list}
    return [(code, format_name(code)) for code in sorted(formats, key=format_name)]


class EventForm(forms.ModelForm):
    format = forms.ChoiceField(choices=_rated_formats, label=gettext_lazy("Format"))
    player_count = forms.IntegerField(
        label=gettext_lazy("Number of players"),
        min_value=1,
        help_text=gettext_lazy(
            "Everyone who played at least one round. The 1997 rules halve K below 32 players and rate "
            "no event below 8; the V:EKN coefficient grows with it."
        ),
    )

    class Meta:
        model = Event
        fields = [
            "name",
            "date",
            "format",
            "team_size",
            "k",
            "player_count",
            "level2_judge",
            "structure",
            "country",
            "city",
            "level",
        ]
        widgets = {
            "date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "k": forms.RadioSelect,
        }
        # The fields' names in the visitor's language (the model's fields without a verbose name of their own).
        labels = {
            "name": gettext_lazy("Name"),
            "date": gettext_lazy("Date"),
            "team_size": gettext_lazy("Team size"),
            "structure": gettext_lazy("Structure"),
            "country": gettext_lazy("Country"),
            "city": gettext_lazy("City"),
        }
        help_texts = {
            "k": K_HELP,
            "level2_judge": gettext_lazy("The 1997 rules halve K without one."),
            "level": gettext_lazy("V:EKN events only: raises the finals bonus."),
            "team_size": gettext_lazy("Team events are rated in the team lists, and their results name teams."),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["k"].choices = KValue.choices  # no blank choice: 16 unless the event says otherwise

    def clean(self):
        cleaned = super().clean()
        fmt, team_size = cleaned.get("format"), cleaned.get("team_size")
        if fmt and team_size and not categories_rating(format=fmt, team_size=team_size):
            self.add_error(
                "team_size",
                _("No rating list takes %(format)s events with teams of %(size)s: choose 1.")
                % {"format": format_name(fmt), "size": team_size},
            )
        if fmt != "vtes" and cleaned.get("level"):
            self.add_error("level", _("Only V:EKN events have a level."))
        return cleaned


# Results files --------------------------------------------------------------------------------

# Files that are not text whatever their name says: spreadsheets, archives, documents, images.
BINARY_SIGNATURES = (
    b"PK\x03\x04",  # zip, xlsx, ods
    b"\xd0\xcf\x11\xe0",  # xls, doc
    b"%PDF",
    b"\x1f\x8b",  # gzip
    b"BZh",
    b"7z\xbc\xaf",
    b"\x89PNG",
    b"\xff\xd8\xff",
    b"GIF8",
)
SNIFF_BYTES = 8192


def csv_problem(head: bytes) -> str | None:
    """Why the first bytes of an upload are not a CSV file's (None when they look like one)."""
    if any(head.startswith(signature) for signature in BINARY_SIGNATURES):
        return _("this is not a CSV file (it looks like a spreadsheet, archive, document or image); export it as CSV")
    if b"\x00" in head:
        return _("this is not a CSV text file (it holds binary data)")
    try:
        head.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 3:  # a character cut off at the end of the sample is fine
            return _("this is not UTF-8 text; save the CSV file as UTF-8")
    if b"," not in head.split(b"\n", 1)[0]:
        return _("the first line is not a CSV header (column names separated by commas)")
    return None


class CsvFileField(forms.FileField):
    """A results file: .csv, at most UPLOAD_MAX_BYTES, and text by its content, not only its name."""

    default_validators = [FileExtensionValidator(["csv"], message=gettext_lazy("Only .csv files are accepted."))]

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload:
            return upload
        if upload.size > settings.UPLOAD_MAX_BYTES:
            raise forms.ValidationError(
                _("The file is %(size)s; at most %(limit)s.")
                % {"size": filesizeformat(upload.size), "limit": filesizeformat(settings.UPLOAD_MAX_BYTES)}
            )
        upload.seek(0)
        problem = csv_problem(upload.read(SNIFF_BYTES))
        if problem:
            raise forms.ValidationError(f"{upload.name}: {problem}.")
        upload.seek(0)
        return upload


# Each results file: (form field, importer file, label).
RESULT_FILES = (
    ("matches", "matches.csv", gettext_lazy("Matches")),
    ("standings", "standings.csv", gettext_lazy("Standings")),
    ("players", "players.csv", gettext_lazy("New players")),
    ("teams", "teams.csv", gettext_lazy("Teams")),
)
# Files carried from one attempt to the next (base64 in hidden fields) up to this size, so that
# registering new players does not mean choosing the files again.
CARRY_MAX_BYTES = 1024 * 1024
MATCHES_HELP = gettext_lazy(
    "Columns: round, player1_id, player2_id, player1_games, player2_games, draws and optionally "
    "elimination (0/1) and event_id. A bye leaves player2_id empty."
)
MATCHES_HELP_VTES = gettext_lazy(
    "Optional for V:EKN events. Columns: round, player1_id, player2_id, player1_games, player2_games, draws and "
    "optionally elimination (0/1) and event_id. A bye leaves player2_id empty."
)


class ResultsUploadForm(forms.Form):
    matches = CsvFileField(required=False, label=gettext_lazy("Matches"), help_text=MATCHES_HELP)
    standings = CsvFileField(
        required=False,
        label=gettext_lazy("Standings"),
        help_text=gettext_lazy(
            "Columns: player_id, rank, vp, gw, final (winner, finalist or empty). Required for V:EKN events."
        ),
    )
    players = CsvFileField(
        required=False,
        label=gettext_lazy("Players"),
        help_text=gettext_lazy(
            "Optional. Columns: id, name, country, region: players not registered yet. "
            "Registered players keep their details."
        ),
    )
    teams = CsvFileField(
        required=False,
        label=gettext_lazy("Teams"),
        help_text=gettext_lazy("Team events: columns id, name, member1, member2, member3 (membership numbers)."),
    )
    matches_carried = forms.CharField(required=False, widget=forms.HiddenInput, strip=False)
    standings_carried = forms.CharField(required=False, widget=forms.HiddenInput, strip=False)
    players_carried = forms.CharField(required=False, widget=forms.HiddenInput, strip=False)
    teams_carried = forms.CharField(required=False, widget=forms.HiddenInput, strip=False)

    def __init__(self, *args, event: Event, **kwargs):
        super().__init__(*args, **kwargs)
        self.event = event
        if event.team_size == 1:
            del self.fields["teams"], self.fields["teams_carried"]
        if event.format == "vtes":
            self.fields["matches"].help_text = MATCHES_HELP_VTES

    def clean(self):
        cleaned = super().clean()
        files = {}
        for name, file, _label in RESULT_FILES:
            if name not in self.fields:
                continue
            upload = cleaned.get(name)
            if upload:
                files[file] = upload.read()
            elif cleaned.get(f"{name}_carried"):
                try:
                    files[file] = base64.b64decode(cleaned[f"{name}_carried"], validate=True)
                except (binascii.Error, ValueError):
                    self.add_error(name, _("The file sent before was damaged on the way: choose it again."))
        required = "standings.csv" if self.event.format == "vtes" else "matches.csv"
        if required not in files and not self.errors:
            field = "standings" if required == "standings.csv" else "matches"
            self.add_error(field, _("Choose the %(file)s file.") % {"file": required})
        cleaned["files"] = files
        return cleaned

    def carry(self, files: dict[str, bytes]) -> None:
        """Put `files` in the hidden fields, for the next attempt (not when they are large)."""
        if sum(len(data) for data in files.values()) > CARRY_MAX_BYTES:
            return
        data = self.data.copy()
        for name, file, _label in RESULT_FILES:
            if f"{name}_carried" in self.fields:
                data[f"{name}_carried"] = base64.b64encode(files[file]).decode() if file in files else ""
        self.data = data

    def carried_names(self) -> list[str]:
        return [str(label) for name, _file, label in RESULT_FILES if self.data.get(f"{name}_carried")]


# New players -----------------------------------------------------------------------------------


COUNTRY_LIST_ID = "country-codes"  # the page's one <datalist> of countries (organize/_new_players.html)


class CountryCodeField(forms.CharField):
    """A country as its ISO code, its English name or its name in the page's language, typed with the page's list
    of countries as suggestions.

    One list serves every row: a <select> of 250 countries per new player made
    the page grow by 10 kB a player.
    """

    widget = forms.TextInput(attrs={"list": COUNTRY_LIST_ID, "size": 4, "autocomplete": "off"})

    def __init__(self, **kwargs):
        super().__init__(max_length=60, required=False, **kwargs)

    def to_python(self, value) -> str:
        text = super().to_python(value).strip()
        if not text:
            return ""
        code = text.upper() if text.upper() in dict(countries) else countries.by_name(text)
        language = get_language()
        if not code and language and not language.startswith("en"):
            code = countries.by_name(text, language=language)
        if not code:
            raise forms.ValidationError(
                _("“%(text)s” is not a country: choose one from the list (or a code such as DE).") % {"text": text}
            )
        return code


class NewPlayersForm(forms.Form):
    """A name and a country for each membership number the results name but nobody registered.

    Fields are per number (name_<number>, country_<number>); the numbers shown
    travel in the hidden `numbers`. A number left without a name stays unknown.
    At most NEW_PLAYERS_PER_UPLOAD numbers are shown (the others are counted in
    `not_shown`), and a hidden field carrying more than a page can show is
    refused whole (`refused`) before anything is checked.
    """

    numbers = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, data=None, *, numbers=()):
        numbers = list(dict.fromkeys(numbers))
        self.shown = numbers[:NEW_PLAYERS_PER_UPLOAD]
        self.not_shown = len(numbers) - len(self.shown)
        self.refused = ""
        if data is not None:
            data = data.copy()
            data["numbers"] = " ".join(self.shown)
        super().__init__(data, initial={"numbers": " ".join(self.shown)})
        for number in self.shown:
            self.fields[f"name_{number}"] = forms.CharField(
                label=_("Name of %(number)s") % {"number": number},
                max_length=200,
                required=False,
                validators=[validate_name],
            )
            self.fields[f"country_{number}"] = CountryCodeField(label=_("Country of %(number)s") % {"number": number})

    @classmethod
    def posted(cls, data) -> "NewPlayersForm":
        """The form as posted back: the numbers the page showed, with the names and countries typed in."""
        raw = data.get("numbers", "")
        if len(raw.split()) > NEW_PLAYERS_PER_UPLOAD or len(raw) > NEW_PLAYERS_PER_UPLOAD * 33:
            form = cls()
            form.refused = _(
                "The list of new players sent back holds more than the %(limit)s a page shows: "
                "nothing was checked or saved. Reload the page and try again."
            ) % {"limit": NEW_PLAYERS_PER_UPLOAD}
            return form
        return cls(data, numbers=[number for number in raw.split() if MEMBERSHIP_NUMBER.fullmatch(number)])

    def countries(self):
        """The page's list of countries, once: (code, name)."""
        return list(countries)

    def rows(self):
        """(membership number, name field, country field) for the template."""
        return [(number, self[f"name_{number}"], self[f"country_{number}"]) for number in self.shown]

    def new_players(self) -> dict[str, tuple[str, str]]:
        """number -> (name, country) for each number given a valid name and country."""
        if not self.is_bound:
            return {}
        self.is_valid()
        players = {}
        for number in self.shown:
            if f"name_{number}" in self.errors or f"country_{number}" in self.errors:
                continue
            name = " ".join((self.cleaned_data.get(f"name_{number}") or "").split())
            if name:
                players[number] = (name, self.cleaned_data.get(f"country_{number}") or "")
        return players


# Results typed in ------------------------------------------------------------------------------


# Names typed out (not picked from the suggestions) looked up in one submission at most: each is a search.
NAMES_LOOKED_UP = 60
NAMES_OFFERED = 4


class PlayerBoxesFormSet(forms.BaseFormSet):
    """Rows with player boxes (the forms' PLAYER_BOXES). A box holding a name typed out in full, rather than a
    number or a suggestion picked, takes the number of the one player so called (found as the player search
    finds: any case, accents or word order); a name of several players, or like others' names (a typo), is an
    error on its box that offers them. Text that finds nobody goes to the importer's rules as it is, which say
    what a membership number is; text that could be a number is left to them too: it may be a new player's."""

    def get_form_kwargs(self, index):
        # A row's boxes are labelled by result_rows, never through label_tag: no suffix to translate for each
        # of 900 rows.
        return {**super().get_form_kwargs(index), "label_suffix": ""}

    def clean(self):
        super().clean()
        boxes = [
            (form, field, " ".join(form.cleaned_data[field].split()))
            for form in self.forms
            if form.is_valid()
            for field in form.PLAYER_BOXES
            if form.cleaned_data.get(field) and not MEMBERSHIP_NUMBER.fullmatch(form.cleaned_data[field])
        ]
        names = list(dict.fromkeys(name for _, _, name in boxes))
        found = {name: _named(name) for name in names[:NAMES_LOOKED_UP]}
        for form, field, name in boxes:
            if name not in found:
                form.add_error(field, _("Too many names typed out at once: pick them from the suggestions."))
            elif isinstance(found[name], forms.ValidationError):
                form.add_error(field, found[name])
            elif found[name] is not None:
                form.cleaned_data[field] = found[name]


def _named(name: str) -> str | forms.ValidationError | None:
    """The membership number of the one player called `name`; the error that offers the players it may mean;
    None when it means nobody."""
    matches = player_matches(query=name)
    candidates = list(matches.players.values_list("name", "membership_number")[: NAMES_OFFERED + 1])
    if not candidates:
        return None
    if len(candidates) == 1 and not matches.near:
        return candidates[0][1]
    offered = "; ".join(f"{each} ({number})" for each, number in candidates[:NAMES_OFFERED])
    more = ", …" if len(candidates) > NAMES_OFFERED else ""
    words = {"name": name, "offered": offered, "more": more}
    if matches.near:
        return forms.ValidationError(
            _("No player is called “%(name)s”. Did you mean %(offered)s%(more)s? Pick one.") % words
        )
    return forms.ValidationError(
        _("Several players are called “%(name)s”: %(offered)s%(more)s. Pick one, or type the number.") % words
    )


class _FieldsOfEveryRow(dict):
    """A row form's fields, shared by every row's form instead of deep-copied for each, as Django copies a
    form's fields so that the form may change its own. These are never changed after their class is made
    (their boxes' attributes are set there): a 900-row standings form made 4,500 copies, with their widgets, a
    request; and when the fields copied themselves as themselves, the copying of each form's fields one by one
    was still the largest part of the page. A form gets a dict of its own (it may order its fields)."""

    def __deepcopy__(self, memo):
        return dict(self)


def _shared_by_rows(form_class):
    """`form_class`, a form of which a formset makes hundreds, its fields shared by all (_FieldsOfEveryRow)."""
    form_class.base_fields = _FieldsOfEveryRow(form_class.base_fields)
    return form_class


def _player_box() -> FixedTextInput:
    return FixedTextInput(attrs={"size": 12, **PLAYER_BOX})


def _count_box(inputmode: str, size: int) -> FixedTextInput:
    return FixedTextInput(attrs={"inputmode": inputmode, "size": size})


@_shared_by_rows
class MatchRowForm(forms.Form):
    """One match of a round, as typed. The importer's rules check it; the fields only carry text."""

    PLAYER_BOXES = ("player1", "player2")

    # matches.csv column -> the field that carries it: a problem with the column is shown on the field.
    COLUMNS = {
        "player1_id": "player1",
        "player2_id": "player2",
        "player1_games": "games1",
        "player2_games": "games2",
        "draws": "draws",
    }

    player1 = forms.CharField(widget=_player_box(), required=False, max_length=250, label=gettext_lazy("Player 1"))
    player2 = forms.CharField(
        widget=_player_box(),
        required=False,
        max_length=250,
        label=gettext_lazy("Player 2"),
        help_text=gettext_lazy("Empty for a bye."),
    )
    games1 = forms.CharField(
        widget=_count_box("numeric", 3), required=False, max_length=5, label=gettext_lazy("Games won by player 1")
    )
    games2 = forms.CharField(
        widget=_count_box("numeric", 3), required=False, max_length=5, label=gettext_lazy("Games won by player 2")
    )
    draws = forms.CharField(
        widget=_count_box("numeric", 3), required=False, max_length=5, label=gettext_lazy("Games drawn")
    )

    def clean_player1(self):
        return suggested_number(self.cleaned_data["player1"])

    def clean_player2(self):
        return suggested_number(self.cleaned_data["player2"])


@_shared_by_rows
class StandingRowForm(forms.Form):
    PLAYER_BOXES = ("player",)
    # standings.csv column -> the field that carries it.
    COLUMNS = {"player_id": "player", "rank": "rank", "vp": "vp", "gw": "gw", "final": "final"}

    player = forms.CharField(widget=_player_box(), required=False, max_length=250, label=gettext_lazy("Player"))
    rank = forms.CharField(widget=_count_box("decimal", 4), required=False, max_length=6, label=gettext_lazy("Rank"))
    vp = forms.CharField(
        widget=_count_box("decimal", 4),
        required=False,
        max_length=8,
        label=gettext_lazy("VP"),
        help_text=gettext_lazy("Halves allowed: 2.5"),
    )
    gw = forms.CharField(widget=_count_box("decimal", 4), required=False, max_length=5, label=gettext_lazy("GW"))
    final = forms.ChoiceField(
        widget=QuickSelect, required=False, choices=FinalPlacing.choices, label=pgettext_lazy("final placing", "Final")
    )

    def clean_player(self):
        return suggested_number(self.cleaned_data["player"])


MatchRowFormSet = forms.formset_factory(
    MatchRowForm, formset=PlayerBoxesFormSet, extra=0, max_num=2000, absolute_max=2000, validate_max=True
)
StandingRowFormSet = forms.formset_factory(
    StandingRowForm, formset=PlayerBoxesFormSet, extra=0, max_num=2000, absolute_max=2000, validate_max=True
)


class RoundForm(forms.Form):
    elimination = forms.BooleanField(
        required=False,
        label=gettext_lazy("Elimination round"),
        help_text=gettext_lazy("Top 8 and finals: a match there cannot be a draw."),
    )


def typed_rows(formset) -> list[Row]:
    """The formset's rows that hold anything, as rows of the importer's file: the values typed by the file's
    column names (the form's COLUMNS), each from its form row."""
    rows = []
    for index, form in enumerate(formset.forms):
        values = {column: (form.cleaned_data.get(name) or "").strip() for column, name in form.COLUMNS.items()}
        if any(values.values()):
            rows.append(Row(values, Origin(form_row=index)))
    return rows
