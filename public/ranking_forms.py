from datetime import date

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ratings.selectors.ranking_filters import RankingFilters, RankingFiltersInvalid, ranking_filters

UNRANKED = "unranked"


class RankingFiltersForm(forms.Form):
    """The query string of a ranking page. Codes are accepted in any case; errors read as advice."""

    continent = forms.CharField(required=False, max_length=2)
    country = forms.CharField(required=False, max_length=2)
    region = forms.CharField(required=False, max_length=6)
    as_of = forms.DateField(
        label=_("As of"),
        required=False,
        input_formats=["%Y-%m-%d"],
        error_messages={"invalid": _("Give the date as YYYY-MM-DD, e.g. 2024-06-30.")},
    )
    list = forms.ChoiceField(
        choices=[("", _("Ranked")), (UNRANKED, _("Unranked"))],
        required=False,
        error_messages={"invalid_choice": _("The list is either ranked (leave it out) or “unranked”.")},
    )
    q = forms.CharField(label=_("Search"), required=False, max_length=100)

    def __init__(self, *args, today: date | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.today = today or timezone.localdate()

    def clean(self):
        """The place, date and search checked as for every reader of the lists (`ranking_filters`)."""
        data = super().clean()
        try:
            self._filters = ranking_filters(
                continent=data.get("continent") or "",
                country=data.get("country") or "",
                region=data.get("region") or "",
                as_of=data.get("as_of"),
                unranked=data.get("list") == UNRANKED,
                search=data.get("q") or "",
                today=self.today,
            )
        except RankingFiltersInvalid as invalid:
            for field, message in invalid.errors.items():  # in the visitor's language
                self.add_error(field, message)
        return data

    def filters(self) -> RankingFilters:
        return self._filters
