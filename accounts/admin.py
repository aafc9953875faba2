from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.models import Group

from accounts.models import MembershipClaim, Profile
from accounts.roles import ADMINS
from accounts.selectors import account_managed_by, accounts_managed_by
from accounts.services import profile_link

User = get_user_model()


def _record_link_change(request, profile: Profile, changed_fields) -> None:
    """Whoever sets or changes the player link in the admin is recorded with the time."""
    if "player" in changed_fields:
        profile_link(profile=profile, player=profile.player, by=request.user)


class ProfileInline(admin.StackedInline):
    model = Profile
    fk_name = "user"
    can_delete = False
    autocomplete_fields = ["player"]
    fields = ["player", "linked_by", "linked_at"]
    readonly_fields = ["linked_by", "linked_at"]
    verbose_name = "player link"
    verbose_name_plural = "player link"


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    inlines = [ProfileInline]
    list_display = ["username", "email", "is_staff", "roles", "linked_player"]
    list_filter = ["is_staff", "is_superuser", "is_active", "groups"]
    list_select_related = ["profile__player"]

    @admin.display(description="roles")
    def roles(self, user):
        return ", ".join(group.name for group in user.groups.all()) or "—"

    @admin.display(description="player")
    def linked_player(self, user):
        profile = getattr(user, "profile", None)
        return profile.player if profile and profile.player else "—"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("groups")

    # Superusers manage everyone. Admins manage organizer and player accounts (accounts.selectors.
    # account_managed_by): any other account, a superuser's or another admin's, is read-only to them,
    # its password page included (Django's password view asks has_change_permission), or an admin
    # could set its password or e-mail and sign in as it.
    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (
            obj is None or account_managed_by(actor=request.user, account=obj)
        )

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (
            obj is None or account_managed_by(actor=request.user, account=obj)
        )

    def get_readonly_fields(self, request, obj=None):
        # Only a superuser makes staff, superusers or admins, or hands out single permissions: an admin
        # could otherwise give themselves (or anyone) every right there is. On their own account an
        # admin's roles are read-only too (they could not be given back by them).
        fields = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            fields += ["is_staff", "is_superuser", "user_permissions"]
            if obj is not None and obj.pk == request.user.pk:
                fields += ["groups"]
        return fields

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "groups" and not request.user.is_superuser:
            kwargs["queryset"] = Group.objects.exclude(name=ADMINS)  # admins give the organizer role, no more
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is Profile:
            for inline_form in formset.forms:
                if inline_form.instance.pk and inline_form.has_changed():
                    _record_link_change(request, inline_form.instance, inline_form.changed_data)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "player", "linked_by", "linked_at"]
    list_select_related = ["user", "player", "linked_by"]
    search_fields = ["user__username", "user__email", "player__membership_number", "player__name"]
    autocomplete_fields = ["user", "player"]
    readonly_fields = ["linked_by", "linked_at"]
    list_filter = [("player", admin.EmptyFieldListFilter)]

    # Re-linking a superuser's or an admin's account to another player is changing that account.
    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and (
            obj is None or account_managed_by(actor=request.user, account=obj.user)
        )

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (
            obj is None or account_managed_by(actor=request.user, account=obj.user)
        )

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "user":
            kwargs["queryset"] = accounts_managed_by(actor=request.user)  # a new profile, for an account they manage
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        _record_link_change(request, obj, form.changed_data)


@admin.register(MembershipClaim)
class MembershipClaimAdmin(admin.ModelAdmin):
    """The record of claims; they are decided in the claims queue on the site (corrections.claim_views)."""

    list_display = ["user", "player", "status", "filed_at", "decided_by", "decided_at"]
    list_filter = ["status"]
    list_select_related = ["user", "player", "decided_by"]
    search_fields = ["user__username", "user__email", "player__membership_number", "player__name"]
    readonly_fields = ["user", "player", "note", "status", "filed_at", "decided_by", "decided_at", "reason"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
