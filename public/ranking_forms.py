from datetime import date

from django import forms
from django.utils import timezone

from players import geography
from ratings.ranking_pages import RankingFilters, as_of_refusal, country_name

UNRANKED = "unranked"


class RankingFiltersForm(forms.Form):
    """The query string of a ranking page. Codes are accepted in any case; errors read as advice."""

    continent = forms.CharField(required=False, max_length=2)
    country = forms.CharField(required=False, max_length=2)
    region = forms.CharField(required=False, max_length=6)
    as_of = forms.DateField(
        label="As of",
        required=False,
        input_formats=["%Y-%m-%d"],
        error_messages={"invalid": "Give the date as YYYY-MM-DD, e.g. 2024-06-30."},
    )
    list = forms.ChoiceField(
        choices=[("", "Ranked"), (UNRANKED, "Unranked")],
        required=False,
        error_messages={"invalid_choice": "The list is either ranked (leave it out) or “unranked”."},
    )
    q = forms.CharField(label="Search", required=False, max_length=100)

    def __init__(self, *args, today: date | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.today = today or timezone.localdate()

    def clean_continent(self) -> str:
        code = self.cleaned_data["continent"].upper()
        if code and code not in geography.CONTINENT_NAMES:
            names = ", ".join(f"{code} ({name})" for code, name in geography.CONTINENT_NAMES.items())
            raise forms.ValidationError(f"“{code}” is not a continent. Continents: {names}.")
        return code

    def clean_country(self) -> str:
        code = self.cleaned_data["country"].upper()
        if code and not geography.is_country(code):
            raise forms.ValidationError(f"“{code}” is not a country code (ISO 3166-1 alpha-2, such as DE or US).")
        return code

    def clean_region(self) -> str:
        code = self.cleaned_data["region"].upper()
        if code and not geography.is_region(code):
            raise forms.ValidationError(f"“{code}” is not a region code (ISO 3166-2, such as DE-BY or US-CA).")
        return code

    def clean_as_of(self) -> date | None:
        day = self.cleaned_data["as_of"]
        refusal = day and as_of_refusal(day, today=self.today)
        if refusal:
            raise forms.ValidationError(refusal)
        return day

    def clean(self):
        data = super().clean()
        region, country, continent = data.get("region"), data.get("country"), data.get("continent")
        if region:
            region_country = region.split("-")[0]
            if country and country != region_country:
                self.add_error("region", f"{region} is not a region of {country_name(country)}.")
                return data
            data["country"] = country = region_country  # a region alone implies its country
        if country and continent and geography.continent_of(country) != continent:
            self.add_error("country", f"{country_name(country)} is not in {geography.CONTINENT_NAMES[continent]}.")
        return data

    def filters(self) -> RankingFilters:
        data = self.cleaned_data
        return RankingFilters(
            continent=data["continent"],
            country=data["country"],
            region=data["region"],
            as_of=data["as_of"],
            unranked=data["list"] == UNRANKED,
            search=data["q"].strip(),
        )
