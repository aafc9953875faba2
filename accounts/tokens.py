"""The link that confirms a new account's e-mail address."""

from django.contrib.auth.tokens import PasswordResetTokenGenerator


class EmailConfirmationTokens(PasswordResetTokenGenerator):
    """Tokens as Django's password-reset ones (signed, valid for PASSWORD_RESET_TIMEOUT), for another purpose.

    The token holds what confirming changes: the account's active flag and
    its last sign-in (confirming signs the user in). A used link is dead, and
    an account an admin deactivates later cannot be woken by its old link.
    """

    key_salt = "accounts.tokens.EmailConfirmationTokens"

    def _make_hash_value(self, user, timestamp):
        last_login = "" if user.last_login is None else user.last_login.replace(microsecond=0, tzinfo=None)
        return f"{user.pk}{user.is_active}{user.email}{last_login}{timestamp}"


email_confirmation_tokens = EmailConfirmationTokens()
