"""gunicorn's settings for production: `gunicorn -c config/gunicorn.py config.wsgi` (make serve-prod).

Every value can be changed through the environment; docs/deployment.md says how to size them.
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
# Pages are mostly Python work: about two processes per core, plus one.
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))  # a request taking longer is ended and logged
graceful_timeout = 30
keepalive = 5
# A worker is replaced after this many requests, so that no process grows for ever.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = max_requests // 10
# The reverse proxy in front (nginx, a load balancer) says whether the request came over HTTPS.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-")
# e.g. add %({ratings.reads}e)s: which database served the request's reads (lib/replicas.py)
if "GUNICORN_ACCESS_LOG_FORMAT" in os.environ:
    access_log_format = os.environ["GUNICORN_ACCESS_LOG_FORMAT"]
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
