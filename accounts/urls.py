from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("sign-up/", views.sign_up, name="sign_up"),
    path("sign-up/sent/", views.sign_up_done, name="sign_up_done"),
    path("sign-up/confirm/<uidb64>/<token>/", views.sign_up_confirm, name="sign_up_confirm"),
    # The paths of django.contrib.auth.urls, included after these (config/urls.py): a request for them
    # comes here, and the names its templates reverse give the same paths.
    path("password_change/", views.PasswordChange.as_view(), name="password_change"),
    path("password_reset/", views.PasswordReset.as_view(), name="password_reset"),
]
