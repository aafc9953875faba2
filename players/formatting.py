"""How ratings, changes and results read on the pages: plain functions, shared by tables and templates."""

import functools
import re
from datetime import date

from django.conf import settings
from django.utils import dateformat, formats
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, gettext_lazy, pgettext, pgettext_lazy

from players import geography

MINUS = "\u2212"  # a real minus sign: same width as "+", read out as "minus"


def signed(value: float | None, places: int = 2) -> str:
    """+12.34 / −8.21 / 0.00: a rating change."""
    if value is None:
        return "—"
    rounded = f"{abs(value):.{places}f}"
    text = _localized(rounded)  # 12.34, or 12,34 in German
    if float(rounded) == 0:
        return text  # no sign on a change that shows as none
    return f"+{text}" if value > 0 else f"{MINUS}{text}"


def decimal(value: float, places: int) -> str:
    """A number rounded to `places` decimals with the language's decimal separator: 12.35, or 12,35 in German.

    Rounded as f"{value:.2f}" rounds (Django's number_format cuts a float's decimals off instead)."""
    return _localized(f"{value:.{places}f}")


def _localized(number: str) -> str:
    """Django's number_format of a number written out with a point, in the active language.

    Kept per language and text: a big event's page formats a thousand rating
    changes, most of them more than once, and number_format costs microseconds
    each (the language's formats looked up every time).
    """
    return _localized_in(get_language(), settings.USE_THOUSAND_SEPARATOR, number)


@functools.lru_cache(maxsize=8192)
def _localized_in(language: str | None, grouped: bool, number: str) -> str:
    return formats.number_format(number)  # `language` and `grouped` are what number_format reads now


def change_class(value: float | None) -> str:
    if not value or abs(value) < 0.005:
        return "change change-none"
    return "change change-up" if value > 0 else "change change-down"


def outcome(score: float) -> str:
    """W, D or L from a history row's S (1, 0.5 or 1/3 for a draw, 0)."""
    if score >= 1:
        return "W"
    if score <= 0:
        return "L"
    return "D"


OUTCOME_WORDS = {
    "W": pgettext_lazy("match result", "Win"),
    "D": pgettext_lazy("match result", "Draw"),
    "L": pgettext_lazy("match result", "Loss"),
}
# The letters as a page shows them (S, U, N in German); the keys stay W, D, L (CSS classes, data).
OUTCOME_LETTERS = {
    "W": pgettext_lazy("win, abbreviated", "W"),
    "D": pgettext_lazy("draw, abbreviated", "D"),
    "L": pgettext_lazy("loss, abbreviated", "L"),
}


def games_shown(won: int, lost: int, drawn: int) -> str:
    """2–1, or 1–1–1 when games were drawn."""
    text = f"{won}–{lost}"
    return f"{text}–{drawn}" if drawn else text


def day(value: date) -> str:
    """A date as the pages write it: 5 May 2003, or 5. Mai 2003 in German (what the template filter
    date:"DATE_FORMAT" writes)."""
    language = get_language()
    pattern = _day_pattern(language)
    if pattern is None:  # a language whose format is more than day, short month and year
        return dateformat.format(value, formats.get_format("DATE_FORMAT", language))
    return pattern.format(day=value.day, month=_month_abbreviation(value.month, language), year=f"{value.year:04d}")


@functools.cache
def _day_pattern(language: str | None) -> str | None:
    """The language's DATE_FORMAT as a str.format pattern ("j. M Y" -> "{day}. {month} {year}"), when made of
    the day, the month's short name and the year alone (ours: config/formats); else None."""
    pattern = formats.get_format("DATE_FORMAT", language)
    fields = {"j": "{day}", "M": "{month}", "Y": "{year}"}
    if any(c.isalpha() and c not in fields for c in pattern) or "\\" in pattern:
        return None
    return "".join(fields.get(c, c.replace("{", "{{").replace("}", "}}")) for c in pattern)


@functools.cache
def _month_abbreviation(month: int, language: str | None) -> str:
    """Jan, Feb...: Django's, translated, memoised by language (the date filter costs 0.1 ms a row, on 50 rows)."""
    return dateformat.format(date(2000, month, 1), "M")


FORMAT_NAMES = {"vtes": "V:TES", "type-1.5": "Type 1.5", "booster-draft": gettext_lazy("Booster draft")}


def format_name(code: str) -> str:
    """An event format as people write it: booster-draft -> Booster draft."""
    return str(FORMAT_NAMES.get(code) or code.replace("-", " ").capitalize())


def region_name(code: str) -> str:
    """A region's name without the alternative names ISO lists in brackets ("Wales [Cymru GB-CYM]")."""
    return geography.region_name(code).split(" [")[0] if code else ""


def percent(value: float, places: int) -> str:
    """A share as a page shows it: 0.6667 -> "66.67%" ("66,67 %" in German)."""
    return _percent_pattern(get_language()) % {"number": decimal(value * 100, places)}


@functools.lru_cache(maxsize=32)
def _percent_pattern(language: str | None) -> str:
    """Looked up once per language: an event's standings show three percentages a row."""
    return pgettext("a percentage", "%(number)s%%")


def plain_number(value) -> str:
    """A number without trailing zeros (2.5, 3), with the language's decimal separator (2,5 in German)."""
    text = f"{float(value):g}"
    return text.replace(".", formats.get_format("DECIMAL_SEPARATOR")) if "." in text else text


# Why a K (the rating history's k_reason, written by ratings.engine.rulesets in English): each kind of reason, with
# its numbers, in the visitor's language.
_EVENT_K = re.compile(r"event K (\d+)")
_PROVISIONAL = re.compile(r"provisional: mean opponent rating ([\d.]+) \+ 400 x \((\d+) - (\d+)\) / (\d+)")
_K_PHRASES = {
    # The rating bands (ratings.engine.elo.BANDS) and the halvings of the 1997 rules.
    "rating 2400 and up": gettext_lazy("rating 2400 and up"),
    "rating 2100-2399": gettext_lazy("rating 2100-2399"),
    "rating below 2100": gettext_lazy("rating below 2100"),
    "8-31 players": gettext_lazy("8-31 players"),
    "no Level II judge": gettext_lazy("no Level II judge"),
}
_K_PHRASE = re.compile("|".join(re.escape(phrase) for phrase in _K_PHRASES))


def k_reason_shown(reason: str) -> str:
    """A history row's reason for its K, as the page shows it: "event K 32" ("Turnier-K 32" in German)."""
    if match := _EVENT_K.fullmatch(reason):
        return gettext("event K %(k)s") % {"k": match[1]}
    if match := _PROVISIONAL.fullmatch(reason):
        return gettext("provisional: mean opponent rating %(mean)s + 400 x (%(wins)s - %(losses)s) / %(matches)s") % {
            "mean": formats.number_format(float(match[1]), 2),
            "wins": match[2],
            "losses": match[3],
            "matches": match[4],
        }
    return _K_PHRASE.sub(lambda found: str(_K_PHRASES[found[0]]), reason)


def listed(items: list) -> str:
    """Items as a sentence lists them ("a", "a and b", "a, b and c"), in the language's own words.

    Items that are all safe HTML give safe HTML (the words between them escaped)."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    separator = pgettext("between the items of a list", ", ")
    pattern = gettext("%(items)s and %(last)s")
    if all(isinstance(item, SafeString) for item in items):
        separator, pattern = conditional_escape(separator), conditional_escape(pattern)
        return mark_safe(pattern % {"items": separator.join(items[:-1]), "last": items[-1]})
    return pattern % {"items": separator.join(items[:-1]), "last": items[-1]}


def change_cell(value: float | None) -> SafeString:
    """A rating change as a table cell shows it: signed, coloured by its direction."""
    return SafeString(f'<span class="{change_class(value)}">{signed(value)}</span>')
