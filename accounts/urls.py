from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("login/", views.SignInView.as_view(), name="login"),
    # The paths of django.contrib.auth.urls, included after these (config/urls.py): a request for them
    # comes here, and the names its templates reverse give the same paths.
    path("password_change/", views.PasswordChange.as_view(), name="password_change"),
    path("password_reset/", views.PasswordReset.as_view(), name="password_reset"),
]
