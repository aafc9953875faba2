"""The checks of a bundle's definitions: categories.csv and events.csv (a mixin of BundleValidator)."""

from django.utils.translation import gettext as _

from events.models import TEAM_SIZES, KValue, Structure, VeknLevel
from organize.importer.records import CategoryRecord, EventRecord
from organize.importer.values import FORMAT, SLUG, parse_count, parse_iso_date
from players import geography
from ratings.models import Category, Ruleset


class DefinitionChecks:
    """categories.csv and events.csv, checked as BundleValidator checks every file (self.rows, self.error)."""

    # categories.csv -------------------------------------------------------

    def categories(self) -> list[CategoryRecord]:
        file = "categories.csv"
        records, seen = [], {}
        for line, (slug, name, ruleset, formats, team_size, ranked_after, components) in self.rows(file):
            ok = True
            if not SLUG.fullmatch(slug):
                self.error(
                    file,
                    line,
                    "slug",
                    _("%(value)s is not a slug (lowercase letters, digits, hyphens)") % {"value": repr(slug)},
                )
                ok = False
            elif slug in seen:
                self.error(
                    file,
                    line,
                    "slug",
                    _("category %(slug)s is already defined on line %(line)s")
                    % {"slug": repr(slug), "line": seen[slug]},
                )
                ok = False
            else:
                seen[slug] = line
            if not name:
                self.error(file, line, "name", _("a name is required"))
                ok = False
            if ruleset not in Ruleset.values:
                self.error(
                    file,
                    line,
                    "ruleset",
                    _("unknown ruleset %(value)s; use one of %(rulesets)s")
                    % {"value": repr(ruleset), "rulesets": ", ".join(Ruleset.values)},
                )
                ok = False
            format_list = formats.split()
            bad_formats = [each for each in format_list if not FORMAT.fullmatch(each)]
            if bad_formats:
                self.error(file, line, "formats", _("%(value)s is not a format name") % {"value": repr(bad_formats[0])})
                ok = False
            elif not format_list and ruleset != Ruleset.DERIVED:
                self.error(file, line, "formats", _("at least one format is required"))
                ok = False
            if ruleset == Ruleset.DERIVED and not components.split():
                self.error(file, line, "components", _("a derived category needs its component categories"))
                ok = False
            size = parse_count(team_size) if team_size else 1
            if size not in TEAM_SIZES:
                self.error(
                    file, line, "team_size", _("%(value)s is not a team size; use 1 or 3") % {"value": repr(team_size)}
                )
                ok = False
            threshold = parse_count(ranked_after)
            if threshold is None:
                self.error(
                    file,
                    line,
                    "ranked_after",
                    _("%(value)s is not a whole number of matches") % {"value": repr(ranked_after)},
                )
                ok = False
            if ok:
                records.append(
                    CategoryRecord(line, slug, name, ruleset, " ".join(format_list), size, threshold, components)
                )
        return records

    def rated_formats(self, bundle_categories: list[CategoryRecord]) -> dict[tuple[str, int], list[str]]:
        """(format, team size) -> slugs of the categories that rate it, the bundle's replacing the stored."""
        definitions = {
            category.slug: (category.ruleset, category.format_list, category.team_size)
            for category in Category.objects.all()
        }
        for record in bundle_categories:
            definitions[record.slug] = (record.ruleset, record.formats.split(), record.team_size)
        rated: dict[tuple[str, int], list[str]] = {}
        for slug, (ruleset, formats, team_size) in definitions.items():
            if ruleset != Ruleset.DERIVED:
                for each in formats:
                    rated.setdefault((each, team_size), []).append(slug)
        return rated

    # events.csv -----------------------------------------------------------

    def events(self, rated_formats) -> dict[str, EventRecord]:
        file = "events.csv"
        records: dict[str, EventRecord] = {}
        known_formats = sorted({fmt for fmt, _ in rated_formats})
        for line, values in self.rows(file):
            code, name, day, fmt, k, players, judge, team_size, structure, country, city, level = values
            ok = True
            if not code or len(code) > 64:
                self.error(file, line, "id", _("an event id of 1 to 64 characters is required"))
                ok = False
            elif code in records:
                self.error(
                    file,
                    line,
                    "id",
                    _("event %(event)s is already listed on line %(line)s")
                    % {"event": code, "line": records[code].line},
                )
                ok = False
            if not name or len(name) > 200:
                self.error(file, line, "name", _("a name of 1 to 200 characters is required"))
                ok = False
            event_date = parse_iso_date(day)
            if event_date is None:
                self.error(
                    file, line, "date", _("%(value)s is not a date in the form YYYY-MM-DD") % {"value": repr(day)}
                )
                ok = False
            size = parse_count(team_size) if team_size else 1
            if size not in TEAM_SIZES:
                self.error(
                    file, line, "team_size", _("%(value)s is not a team size; use 1 or 3") % {"value": repr(team_size)}
                )
                ok = False
            fmt = fmt.lower()
            if fmt not in known_formats:
                self.error(
                    file,
                    line,
                    "format",
                    _("unknown format %(value)s; known formats: %(formats)s")
                    % {"value": repr(fmt), "formats": ", ".join(known_formats)},
                )
                ok = False
            elif size in TEAM_SIZES and (fmt, size) not in rated_formats:
                self.error(
                    file,
                    line,
                    "format",
                    _("no rating category takes %(format)s events with team size %(size)s")
                    % {"format": repr(fmt), "size": size},
                )
                ok = False
            k_value = parse_count(k) if k else KValue.DEFAULT
            if k_value not in KValue.values:
                self.error(
                    file,
                    line,
                    "k",
                    _("%(value)s is not a K-value; use one of 8, 16, 24, 32, 40, 48 (blank: 16)") % {"value": repr(k)},
                )
                ok = False
            player_count = None
            if players:
                player_count = parse_count(players)
                if not player_count:
                    self.error(
                        file,
                        line,
                        "players",
                        _("%(value)s is not a positive number of players") % {"value": repr(players)},
                    )
                    ok = False
            if judge not in ("0", "1"):
                self.error(file, line, "level2_judge", _("%(value)s must be 0 or 1") % {"value": repr(judge)})
                ok = False
            structure = structure.lower() or Structure.SWISS
            if structure not in Structure.values:
                self.error(
                    file,
                    line,
                    "structure",
                    _("%(value)s is not one of %(choices)s")
                    % {"value": repr(structure), "choices": ", ".join(Structure.values)},
                )
                ok = False
            country = country.upper()
            if country and not geography.is_country(country):
                self.error(
                    file,
                    line,
                    "country",
                    _("%(value)s is not an ISO 3166-1 alpha-2 country code") % {"value": repr(country)},
                )
                ok = False
            if len(city) > 100:
                self.error(file, line, "city", _("the city is longer than 100 characters"))
                ok = False
            level = level.lower()
            if level not in VeknLevel.values:
                levels = ", ".join(value for value in VeknLevel.values if value)
                self.error(
                    file,
                    line,
                    "level",
                    _("%(value)s is not one of %(choices)s (or blank)") % {"value": repr(level), "choices": levels},
                )
                ok = False
            if ok:
                records[code] = EventRecord(
                    line,
                    code,
                    name,
                    event_date,
                    fmt,
                    k_value,
                    player_count,
                    judge == "1",
                    size,
                    structure,
                    country,
                    city,
                    level,
                )
        return records
