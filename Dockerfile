FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
# Everything the package ships (pyproject.toml's packages: bot, rules, fakegithub for `demo` and
# `fake-github`), built and installed non-editable from /src, which is then removed: the
# program runs from site-packages, never from a source tree. tests/test_image.py builds this
# tree from these COPY lines and checks every command and the CMD below.
WORKDIR /src
COPY pyproject.toml README.md LICENSE requirements.txt ./
COPY bot ./bot
COPY rules ./rules
COPY fakegithub ./fakegithub
# The dependencies and the build backend from the hash-pinned lock file, then the package itself,
# resolving nothing again and fetching no build backend: nothing unpinned is installed.
RUN pip install --require-hashes -r requirements.txt && pip install --no-deps --no-build-isolation . \
    && cd / && rm -rf /src && useradd --create-home --uid 10001 app && mkdir /data && chown app /data
WORKDIR /data
USER app
ENV STORE_PATH=/data/recipe-review.sqlite3
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD ["python", "-c", "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
# Webhook receiver; it refuses to start without WEBHOOK_SECRET and credentials (`--env-file app.env`,
# see app.env.example). For QUEUE=rq run `recipe-review worker` in more containers from this image.
CMD ["recipe-review", "serve", "--host", "0.0.0.0", "--port", "8000"]
