"""Appeals and corrections in the admin site: read-only records, decided and made on the site's own pages.

Corrections are an audit trail, so nobody edits or deletes them here; appeals
are decided on their review page, which shows the impact first.
"""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from corrections import (
    results_admin,  # noqa: F401  (events, matches and standings: edits are corrections)
    services,
)
from corrections.models import Appeal, Correction
from corrections.selectors import user_decides_appeals
from players.models import Suspension


class _ReadOnlyForAdmins(admin.ModelAdmin):
    """Admins (the role, whatever its model permissions) may look; nobody adds, changes or deletes."""

    def has_module_permission(self, request):
        return user_decides_appeals(user=request.user)

    def has_view_permission(self, request, obj=None):
        return user_decides_appeals(user=request.user)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Correction)
class CorrectionAdmin(_ReadOnlyForAdmins):
    list_display = ["corrected_at", "kind", "source", "event_name", "round", "change", "corrected_by", "log_entry"]
    list_filter = ["kind", "source", "corrected_at"]
    list_select_related = ["corrected_by", "participant1__player", "participant1__team", "participant2__player",
                           "participant2__team"]  # fmt: skip
    search_fields = ["event_name", "reason", "participant1__player__name", "participant2__player__name",
                     "participant1__player__membership_number", "participant2__player__membership_number"]  # fmt: skip
    date_hierarchy = "corrected_at"

    @admin.display(description=gettext_lazy("change"))
    def change(self, correction):
        return f"{correction.old_result} → {correction.new_result}"

    @admin.display(description=gettext_lazy("public log"))
    def log_entry(self, correction):
        return format_html('<a href="{}">#{}</a>', correction.get_absolute_url(), correction.pk)


@admin.register(Appeal)
class AppealAdmin(_ReadOnlyForAdmins):
    list_display = ["created_at", "status", "player", "match_label", "claimed", "decided_by", "review"]
    list_filter = ["status", "created_at"]
    list_select_related = ["player", "decided_by"]
    search_fields = ["player__name", "player__membership_number", "match_label", "explanation"]
    date_hierarchy = "created_at"

    @admin.display(description=gettext_lazy("reported → claimed"))
    def claimed(self, appeal):
        return f"{appeal.reported_result} → {appeal.claimed_result}"

    @admin.display(description=gettext_lazy("review"))
    def review(self, appeal):
        url = reverse("corrections:appeal_review", args=[appeal.pk])
        return format_html('<a href="{}">{}</a>', url, pgettext("button", "Review") if appeal.is_open else _("Details"))


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    """Admins suspend a player for a period with a reason (players.models.Suspension). Saving goes through the
    service, which moves the player in the lists by a job and records who suspended them."""

    list_display = ["player", "starts_on", "ends_on", "reason", "suspended_by", "recorded_at"]
    list_select_related = ["player", "suspended_by"]
    search_fields = ["player__membership_number", "player__name"]
    autocomplete_fields = ["player"]
    readonly_fields = ["suspended_by", "recorded_at"]
    date_hierarchy = "starts_on"

    def save_model(self, request, obj, form, change):
        services.suspension_save(suspension=obj, by=request.user)

    def delete_model(self, request, obj):
        services.suspension_delete(suspension=obj)

    def delete_queryset(self, request, queryset):
        for suspension in queryset.select_related("player"):  # each moves its player in the lists
            services.suspension_delete(suspension=suspension)
