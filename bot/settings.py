"""Process settings, read from the environment once in `create_app()` / the worker.

Environment (names are a contract): GITHUB_API_URL, GITHUB_TOKEN, GITHUB_APP_ID, GITHUB_PRIVATE_KEY,
GITHUB_PRIVATE_KEY_PATH, WEBHOOK_SECRET, BOT_LOGIN, DRY_RUN, QUEUE, REDIS_URL, plus the tuning knobs
below. Secrets are SecretStr so they never print in logs or reprs.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PUBLIC_API_URL = "https://api.github.com"


class Settings(BaseSettings):
    """Everything the running bot needs; unknown env vars are ignored."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    github_api_url: str = PUBLIC_API_URL  # GitHub Enterprise (…/api/v3) or the fake
    github_token: SecretStr | None = None  # token auth (local use, the fake)
    github_app_id: int | None = None  # App auth: app id + private key (PEM) or its path
    github_private_key: SecretStr | None = None
    github_private_key_path: Path | None = None
    webhook_secret: SecretStr = SecretStr("")  # HMAC key of X-Hub-Signature-256; empty refuses all deliveries
    bot_login: str = "recipe-review[bot]"  # our own login: its comments and label events are ignored
    dry_run: bool = False  # compute and log the plan, write nothing

    queue: Literal["threads", "rq"] = "threads"  # in-process workers (default) or RQ on Redis
    redis_url: str = "redis://127.0.0.1:6379/0"
    store_path: Path = Path("recipe-review.sqlite3")  # SQLite store of the threads mode
    worker_threads: int = Field(default=4, ge=1, le=64)
    max_body_bytes: int = Field(default=25 * 1024 * 1024, ge=1024)  # larger deliveries get 413
    write_interval_s: float = Field(default=1.0, ge=0)  # spacing of content writes (GitHub asks ≥ 1 s)
    http_timeout_s: float = Field(default=15.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    log_level: str = "INFO"

    @model_validator(mode="after")
    def _auth_is_consistent(self) -> "Settings":
        if self.github_app_id is not None and not (self.github_private_key or self.github_private_key_path):
            raise ValueError("GITHUB_APP_ID needs GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH")
        return self

    def private_key(self) -> str | None:
        if self.github_private_key is not None:
            return self.github_private_key.get_secret_value()
        if self.github_private_key_path is not None:
            return self.github_private_key_path.read_text()
        return None

    @property
    def app_auth(self) -> bool:
        return self.github_app_id is not None
