import os

from django.core.asgi import get_asgi_application

from config.startup import collector_tuned, secret_key_required

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
secret_key_required()
collector_tuned()
