import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from players import geography
from ratings.exports import csv_lines, export_record
from ratings.models import Category
from ratings.selectors.lists import ranking_list
from ratings.selectors.rankings import EXPORT_COLUMNS


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--as-of {value!r} is not a date in the form YYYY-MM-DD") from None


class Command(BaseCommand):
    help = "Export every participant rated in a category as of a date (CSV or JSON), with ranks."

    def add_arguments(self, parser):
        parser.add_argument("--category", required=True, help="Category slug, e.g. constructed.")
        parser.add_argument("--as-of", help="YYYY-MM-DD (default: today's ratings).")
        parser.add_argument("--continent", default="", help="Continent code, e.g. EU.")
        parser.add_argument("--country", default="", help="ISO 3166-1 alpha-2 code, e.g. DE.")
        parser.add_argument("--region", default="", help="ISO 3166-2 code, e.g. DE-BY.")
        parser.add_argument("--format", choices=["csv", "json"], default="csv", dest="output_format")

    def handle(self, *args, category, as_of, continent, country, region, output_format, **options):
        try:
            category = Category.objects.get(slug=category)
        except Category.DoesNotExist:
            slugs = ", ".join(Category.objects.values_list("slug", flat=True))
            raise CommandError(f"unknown category {category!r}; categories: {slugs}") from None
        country, region, continent = country.upper(), region.upper(), continent.upper()
        if country and not geography.is_country(country):
            raise CommandError(f"--country {country!r} is not an ISO 3166-1 alpha-2 code")
        if region and not geography.is_region(region):
            raise CommandError(f"--region {region!r} is not an ISO 3166-2 code")
        if continent and continent not in geography.CONTINENT_NAMES:
            raise CommandError(f"--continent {continent!r} is not one of {', '.join(geography.CONTINENT_NAMES)}")
        rows = ranking_list(
            category=category,
            as_of=_date(as_of) if as_of else None,
            continent=continent,
            country=country,
            region=region,
        )
        # Computed from the history rather than read from the stored lists: any date, ranked and unranked in
        # one file. A RankingRow's attributes are named as the export's columns.
        values = [tuple(getattr(row, column) for column in EXPORT_COLUMNS) for row in rows]
        if output_format == "json":
            self.stdout.write(json.dumps([export_record(row) for row in values], ensure_ascii=False, indent=1))
            return
        for lines in csv_lines(values):  # CSV is opened in spreadsheets: csv_lines writes no formulas
            self.stdout.write(lines, ending="")
