from django import forms
from django.contrib import admin

from ratings.models import Category, Ruleset


class CategoryAdminForm(forms.ModelForm):
    class Meta:
        model = Category
        fields = [
            "name",
            "slug",
            "position",
            "ruleset",
            "formats",
            "components",
            "team_size",
            "start_rating",
            "ranked_after",
            "provisional_until",
            "display_rounding",
            "inactivity_months",
            "window_months",
            "best_of",
        ]

    def clean(self):
        cleaned_data = super().clean()
        ruleset = cleaned_data.get("ruleset")
        if ruleset == Ruleset.DERIVED:
            components = cleaned_data.get("components", "").split()
            if not components:
                self.add_error("components", "A derived category averages other categories: name at least one.")
            unknown = sorted(set(components) - set(Category.objects.values_list("slug", flat=True)))
            if unknown:
                self.add_error("components", f"No category has the slug: {', '.join(unknown)}.")
        elif ruleset and not cleaned_data.get("formats", "").strip():
            self.add_error("formats", "Name the formats whose events this category rates.")
        return cleaned_data


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    form = CategoryAdminForm
    list_display = [
        "position",
        "slug",
        "name",
        "ruleset",
        "formats",
        "team_size",
        "ranked_after",
        "provisional_until",
        "display_rounding",
    ]
    list_display_links = ["slug", "name"]
    list_editable = ["position"]
    list_filter = ["ruleset", "team_size", "display_rounding"]
    search_fields = ["slug", "name", "formats"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (None, {"fields": ["name", "slug", "position"]}),
        ("What it rates", {"fields": ["ruleset", "formats", "components", "team_size"]}),
        (
            "Thresholds and display",
            {"fields": ["start_rating", "ranked_after", "provisional_until", "display_rounding"]},
        ),
        ("V:EKN", {"fields": ["inactivity_months", "window_months", "best_of"], "classes": ["collapse"]}),
    ]
