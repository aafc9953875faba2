"""Countries, continents and regions: plain lookups, no ORM.

Countries are ISO 3166-1 alpha-2 codes, regions ISO 3166-2 subdivision codes
(`DE-BY`, `US-CA`). The continent follows from the country (SPEC 1).
Transcontinental countries are listed where their sporting federations
play: Russia, Turkey, Cyprus and the Caucasus in Europe, Egypt in Africa.
"""

from functools import cache

import pycountry
from django.utils.translation import gettext_lazy


def gettext_noop(message: str) -> str:
    """Marks a text for the catalogs, untranslated: Django's own reads the settings, and this module is
    imported without them (the demo world's writer runs in a bare process)."""
    return message


# The continents' names in English, for what is written in English whatever the visitor's language (the demo
# world's event names); marked for the catalogs, which CONTINENT_NAMES reads.
CONTINENT_NAMES_ENGLISH = {
    "AF": gettext_noop("Africa"),
    "AN": gettext_noop("Antarctica"),
    "AS": gettext_noop("Asia"),
    "EU": gettext_noop("Europe"),
    "NA": gettext_noop("North America"),
    "OC": gettext_noop("Oceania"),
    "SA": gettext_noop("South America"),
}
# Lazy: each visitor reads them in their language (as str() or in a template, not at import).
CONTINENT_NAMES = {code: gettext_lazy(name) for code, name in CONTINENT_NAMES_ENGLISH.items()}

_COUNTRIES_BY_CONTINENT = {
    "AF": "AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY "
    "MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW",
    "AN": "AQ BV GS HM TF",
    "AS": "AE AF BD BH BN BT CC CN CX HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM "
    "MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TW UZ VN YE",
    "EU": "AD AL AM AT AX AZ BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GE GG GI GR HR HU IE "
    "IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM TR UA VA XK",
    "NA": "AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS "
    "MX NI PA PM PR SV SX TC TT US VC VG VI",
    "OC": "AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS",
    "SA": "AR BO BR CL CO EC FK GF GY PE PY SR UY VE",
}

CONTINENT_OF_COUNTRY = {
    country: continent for continent, countries in _COUNTRIES_BY_CONTINENT.items() for country in countries.split()
}


def continent_of(country: str) -> str:
    """The continent code of a country code, '' when the country is unknown."""
    return CONTINENT_OF_COUNTRY.get(country, "")


def countries_in(continent: str) -> list[str]:
    return _COUNTRIES_BY_CONTINENT.get(continent, "").split()


@cache
def _subdivision_codes() -> frozenset[str]:
    return frozenset(subdivision.code for subdivision in pycountry.subdivisions)


@cache
def _country_codes() -> frozenset[str]:
    return frozenset(country.alpha_2 for country in pycountry.countries) | {"XK"}


def is_country(code: str) -> bool:
    return code in _country_codes()


def is_region(code: str) -> bool:
    return code in _subdivision_codes()


def region_name(code: str) -> str:
    """The subdivision's English name ("Wales", not "Wales [Cymru GB-CYM]")."""
    subdivision = pycountry.subdivisions.get(code=code)
    return subdivision.name.split(" [")[0] if subdivision else code
