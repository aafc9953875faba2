"""What a ranking list is asked for (place, date, ranked or not, search), checked once for every reader.

The ranking pages (`public.ranking_forms`), their CSV and JSON exports and the
API build their `RankingFilters` through `ranking_filters`, so one question
gets one answer, or one refusal in the same words, wherever it is asked.
"""

from dataclasses import dataclass
from datetime import date

from django.utils import timezone
from django.utils.translation import gettext as _

from players import geography
from ratings.selectors.places import country_name

# No list before this day: older than any tournament, and the end of the month before it (a past
# list's movement is measured against it) is still a date.
EARLIEST_AS_OF = date(1900, 1, 1)


@dataclass(frozen=True)
class RankingFilters:
    """What a ranking list shows, validated (build it with `ranking_filters`)."""

    continent: str = ""
    country: str = ""  # set whenever region is: a region implies its country
    region: str = ""
    as_of: date | None = None  # None: today
    unranked: bool = False
    search: str = ""

    @property
    def level(self) -> str:
        return "region" if self.region else "country" if self.country else "continent" if self.continent else "world"

    @property
    def place(self) -> str:
        """The code of the level's place ('' for the world)."""
        return getattr(self, self.level) if self.level != "world" else ""

    def is_today(self, today: date) -> bool:
        return self.as_of is None or self.as_of >= today


class RankingFiltersInvalid(ValueError):
    """The filters cannot be met: `errors` maps each parameter at fault to why, in words for people (in the
    active language: the visitor's on the pages, English in the API, config/languages.py)."""

    def __init__(self, errors: dict[str, str]):
        super().__init__(" ".join(errors.values()))
        self.errors = errors


def as_of_refusal(day: date, *, today: date) -> str:
    """Why a past list cannot be asked for on `day` ("" when it can), in the active language."""
    if day > today:
        return _("Rankings are known up to today (%(today)s), not for %(day)s.") % {
            "today": today.isoformat(),
            "day": day.isoformat(),
        }
    if day < EARLIEST_AS_OF:
        return _("Rankings start on %(earliest)s: give a later date than %(day)s.") % {
            "earliest": EARLIEST_AS_OF.isoformat(),
            "day": day.isoformat(),
        }
    return ""


def ranking_filters(
    *,
    continent: str = "",
    country: str = "",
    region: str = "",
    as_of: date | None = None,
    unranked: bool = False,
    search: str = "",
    today: date | None = None,
) -> RankingFilters:
    """The filters for these parameters (codes in any case), or RankingFiltersInvalid saying what is wrong.

    A region alone implies its country; a country must lie in the continent
    and a region in the country given with it.
    """
    continent, country, region = (code.strip().upper() for code in (continent, country, region))
    today = today or timezone.localdate()
    implied_country, errors = _checked(continent, country, region, as_of, today)
    if errors:
        raise RankingFiltersInvalid(errors)
    return RankingFilters(
        continent=continent,
        country=implied_country,
        region=region,
        as_of=as_of,
        unranked=unranked,
        search=search.strip(),
    )


def _checked(continent: str, country: str, region: str, as_of: date | None, today: date) -> tuple[str, dict]:
    """The country (a region implies it) and what is wrong with the parameters, in the active language."""
    errors: dict[str, str] = {}
    if continent and continent not in geography.CONTINENT_NAMES:
        names = ", ".join(f"{code} ({name})" for code, name in geography.CONTINENT_NAMES.items())
        errors["continent"] = _("“%(code)s” is not a continent. Continents: %(names)s.") % {
            "code": continent,
            "names": names,
        }
    if country and not geography.is_country(country):
        errors["country"] = _("“%(code)s” is not a country code (ISO 3166-1 alpha-2, such as DE or US).") % {
            "code": country
        }
    if region and not geography.is_region(region):
        errors["region"] = _("“%(code)s” is not a region code (ISO 3166-2, such as DE-BY or US-CA).") % {"code": region}
    refusal = as_of and as_of_refusal(as_of, today=today)
    if refusal:
        errors["as_of"] = refusal
    # The places together, as far as each is a place at all.
    valid_country = country if "country" not in errors else ""
    if region and "region" not in errors:
        region_country = region.split("-")[0]
        if valid_country and valid_country != region_country:
            errors["region"] = _("%(region)s is not a region of %(country)s.") % {
                "region": region,
                "country": country_name(valid_country),
            }
            valid_country = ""  # said once: the region's country is not the one given
        else:
            country = valid_country = region_country
    if valid_country and continent and "continent" not in errors and geography.continent_of(valid_country) != continent:
        errors["country"] = _("%(country)s is not in %(continent)s.") % {
            "country": country_name(valid_country),
            "continent": geography.CONTINENT_NAMES[continent],
        }
    return country, errors
