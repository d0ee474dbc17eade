FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
RUN pip install . && useradd --create-home --uid 10001 app && mkdir /data && chown app /data
USER app
ENV STORE_PATH=/data/recipe-review.sqlite3
EXPOSE 8000
# Webhook receiver; for QUEUE=rq run `recipe-review worker` in more containers from this image.
CMD ["recipe-review", "serve", "--host", "0.0.0.0", "--port", "8000"]
