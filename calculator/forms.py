import re

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from ratings.engine.calculator import FIXED_K_RULESETS, K_VALUES

RULES = [
    ("dci-2001", gettext_lazy("DCI 2001: the event's K, a draw scores ½")),
    ("match-points", gettext_lazy("Match points: K by rating band, a draw scores ⅓")),
    ("dci-1997", gettext_lazy("DCI 1997, established player: K by rating band, halved for small events")),
]
BAND = "band"
K_CHOICES = [
    ("8", gettext_lazy("8: casual (Friday Night Magic)")),
    ("16", gettext_lazy("16: default")),
    ("24", gettext_lazy("24: enhanced")),
    ("32", gettext_lazy("32: Pro Tour Qualifier")),
    ("40", gettext_lazy("40: Grand Prix, Nationals")),
    ("48", gettext_lazy("48: Pro Tour, Worlds")),
    (BAND, gettext_lazy("By rating band: 32 / 24 / 16")),
]
RESULTS = [
    ("W", pgettext_lazy("match result", "Win")),
    ("D", pgettext_lazy("match result", "Draw")),
    ("L", pgettext_lazy("match result", "Loss")),
]

DEFAULT_ROWS = 8  # opponent rows offered without JavaScript: five Swiss rounds and a top 8
ROWS_STEP = 8  # rows the "More rows" button adds
MAX_ROWS = 48
OPPONENT_FIELD = re.compile(r"^opponent(\d+)$")
MIN_RATING, MAX_RATING = 0, 4000


def rating_field(**options) -> forms.FloatField:
    return forms.FloatField(
        min_value=MIN_RATING,
        max_value=MAX_RATING,
        widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
        **options,
    )


class CalculatorForm(forms.Form):
    """Your rating, the rules, and one row per opponent: `opponent<n>` (rating) and `result<n>` (W/D/L).

    Numbered fields rather than a formset keep a calculation's URL short
    enough to write by hand: ?rating=1650&opponent1=1600&result1=W.
    """

    rating = rating_field(label=gettext_lazy("Your rating"), initial=1600)
    rules = forms.ChoiceField(label=gettext_lazy("Rules"), choices=RULES, initial="dci-2001", widget=forms.RadioSelect)
    k = forms.ChoiceField(label=gettext_lazy("K-value"), choices=K_CHOICES, initial="16")
    small_event = forms.BooleanField(required=False, label=gettext_lazy("8 to 31 players (K halved)"))
    no_judge = forms.BooleanField(required=False, label=gettext_lazy("No Level II judge (K halved again)"))

    def __init__(self, data=None, *, rows: int | None = None, **kwargs):
        super().__init__(data, **kwargs)
        self.row_count = self._row_count(rows)
        for number in range(1, self.row_count + 1):
            self.fields[f"opponent{number}"] = rating_field(
                label=_("Opponent %(number)s: rating") % {"number": number}, required=False
            )
            self.fields[f"result{number}"] = forms.ChoiceField(
                label=_("Result against opponent %(number)s") % {"number": number},
                choices=RESULTS,
                initial="W",
                required=False,  # an empty row needs none
                widget=forms.RadioSelect,
            )

    @classmethod
    def from_query(cls, query: QueryDict) -> "CalculatorForm":
        """Bound once anything but the row count was sent: a bare /calculator/ shows an empty form."""
        rows = query.get("rows", "")
        if not any(key != "rows" for key in query):
            return cls(rows=int(rows) if rows.isdigit() else None)
        # A hand-written link may leave the rules out: the 2001 rules, and K 16 or the band to suit.
        data = query.copy()
        data.setdefault("rules", "dci-2001")
        data.setdefault("k", "16" if data["rules"] in FIXED_K_RULESETS else BAND)
        return cls(data, rows=int(rows) if rows.isdigit() else None)

    def _row_count(self, asked: int | None) -> int:
        """Enough rows for every opponent sent, and for what the "More rows" button asked for."""
        sent = [int(match[1]) for key in self.data if (match := OPPONENT_FIELD.match(key))]
        count = max([DEFAULT_ROWS if not self.is_bound else 1, asked or 0, *sent])
        return min(count, MAX_ROWS)

    @property
    def opponent_rows(self):
        """(number, rating field, result field) per row, for the template."""
        return [(number, self[f"opponent{number}"], self[f"result{number}"]) for number in range(1, self.row_count + 1)]

    @property
    def halvings(self):
        return [self["small_event"], self["no_judge"]]

    @property
    def more_rows(self) -> int | None:
        return self.row_count + ROWS_STEP if self.row_count < MAX_ROWS else None

    def clean_k(self):
        k = self.cleaned_data["k"]
        return None if k == BAND else int(k)

    def clean(self):
        cleaned = super().clean()
        self._check_k(cleaned.get("rules"), cleaned)
        cleaned["opponents"] = self._opponents(cleaned)
        row_fields = [name for name in self.fields if OPPONENT_FIELD.match(name) or name.startswith("result")]
        if not cleaned["opponents"] and not any(name in self.errors for name in row_fields):
            raise forms.ValidationError(_("Enter at least one opponent's rating."), code="no_opponents")
        return cleaned

    def _check_k(self, rules: str | None, cleaned: dict) -> None:
        """The K-value and the halvings must suit the rules (a wrong field is told, not silently ignored)."""
        if rules and "k" in cleaned:
            if rules in FIXED_K_RULESETS and cleaned["k"] is None:
                self.add_error(
                    "k",
                    _("The 2001 rules use the event's K: choose one of %(values)s.")
                    % {"values": ", ".join(map(str, K_VALUES))},
                )
            elif rules not in FIXED_K_RULESETS and cleaned["k"] is not None:
                self.add_error("k", _("These rules take K from your rating band: choose “By rating band”."))
        if rules != "dci-1997":
            for field in ("small_event", "no_judge"):
                if cleaned.get(field):
                    self.add_error(field, _("Only the 1997 rules halve K: untick this or choose the 1997 rules."))

    def _opponents(self, cleaned: dict) -> list[tuple[float, str]]:
        """(rating, result) of every row with a rating, in row order; rows without one are skipped."""
        opponents = []
        for number in range(1, self.row_count + 1):
            rating, result = cleaned.get(f"opponent{number}"), cleaned.get(f"result{number}")
            if rating is None:
                continue
            if result:
                opponents.append((rating, result))
            elif f"result{number}" not in self.errors:
                self.add_error(f"result{number}", _("Choose a win, a draw or a loss."))
        return opponents
