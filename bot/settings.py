"""Process settings, read from the environment once in `create_app()` / the worker.

Environment (names are a contract): GITHUB_API_URL, GITHUB_TOKEN, GITHUB_APP_ID, GITHUB_PRIVATE_KEY,
GITHUB_PRIVATE_KEY_PATH, WEBHOOK_SECRET, BOT_LOGIN, DRY_RUN, QUEUE, REDIS_URL, plus the tuning knobs
below. Probot's names are accepted too: APP_ID, PRIVATE_KEY, PRIVATE_KEY_PATH (when both spellings
of one setting are set they must agree: `startup_problems`). Secrets are SecretStr so they never
print in logs or reprs.

A private key is PEM text (as GitHub issues it), the same with its newlines written as `\\n` (one
line, for `docker run --env-file` and dotenv files, which cannot hold a multi-line value), or that
PEM base64-encoded: Probot's three forms.

`serve` and `worker` call `load_for(role)` at start-up: every missing or broken setting is reported
by name in one `ConfigurationError`, before anything listens or connects.
"""
from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

PUBLIC_API_URL = "https://api.github.com"
# Probot's spelling → ours: both are read; `startup_problems` refuses the two disagreeing.
PROBOT_ALIASES = {"APP_ID": "GITHUB_APP_ID", "PRIVATE_KEY": "GITHUB_PRIVATE_KEY",
                  "PRIVATE_KEY_PATH": "GITHUB_PRIVATE_KEY_PATH"}
SECRET_FIELDS = frozenset({"github_token", "github_private_key", "webhook_secret"})


def normalize_private_key(value: str) -> str:
    """PEM text from any of Probot's three forms (see the module docstring); other text unchanged."""
    text = value.strip()
    if "-----BEGIN" not in text:
        try:
            decoded = base64.b64decode(text, validate=True).decode("utf-8")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            return value
        if "-----BEGIN" in decoded:
            text = decoded.strip()
    if "\\n" in text and "\n" not in text:
        text = text.replace("\\n", "\n").strip()
    return text + "\n"


class Settings(BaseSettings):
    """Everything the running bot needs; unknown env vars are ignored."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    github_api_url: str = PUBLIC_API_URL  # GitHub Enterprise (…/api/v3) or the fake
    github_token: SecretStr | None = None  # token auth (local use, the fake)
    # App auth: app id + private key (PEM) or its path; Probot's APP_ID, PRIVATE_KEY[_PATH] as well.
    github_app_id: int | None = Field(default=None, validation_alias=AliasChoices("github_app_id", "app_id"))
    github_private_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("github_private_key", "private_key"))
    github_private_key_path: Path | None = Field(
        default=None, validation_alias=AliasChoices("github_private_key_path", "private_key_path"))
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

    @field_validator("github_private_key", mode="before")
    @classmethod
    def _pem(cls, value: object) -> object:
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        return normalize_private_key(value) if isinstance(value, str) and value.strip() else value

    @model_validator(mode="after")
    def _auth_is_consistent(self) -> Settings:
        if self.github_app_id is not None and not (self.github_private_key or self.github_private_key_path):
            raise ValueError("GITHUB_APP_ID needs GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH")
        return self

    def private_key(self) -> str | None:
        if self.github_private_key is not None:
            return self.github_private_key.get_secret_value()
        if self.github_private_key_path is not None:
            return normalize_private_key(self.github_private_key_path.read_text())
        return None

    @property
    def app_auth(self) -> bool:
        return self.github_app_id is not None


class _FromMapping(Settings):
    """Settings from one given mapping only (the environment `load_for` was handed)."""

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


class ConfigurationError(Exception):
    """The settings cannot work: every problem, by the name of its setting."""

    def __init__(self, role: str, problems: list[str]):
        self.role, self.problems = role, problems
        super().__init__(f"`recipe-review {role}` cannot start:\n" + "\n".join(f"  - {p}" for p in problems))


def _env_name(field: str) -> str:
    return field.upper()


def _validation_problems(err: ValidationError, values: Mapping[str, str], names: Mapping[str, str]) -> list[str]:
    out = []
    for e in err.errors():
        field = str(e["loc"][0]) if e["loc"] else ""
        if not field:
            out.append(e["msg"].removeprefix("Value error, "))
            continue
        name = names.get(field, _env_name(field))
        shown = "" if field in SECRET_FIELDS else f"={values.get(field, '')!r}"
        out.append(f"{name}{shown}: {e['msg']}")
    return out


def _key_problem(name: str, pem: str) -> str | None:
    """Why `pem` is not an RSA private key GitHub could have issued, or None."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    try:
        key = serialization.load_pem_private_key(pem.encode("utf-8"), password=None)
    except (ValueError, TypeError) as err:
        reason = "it is encrypted with a password" if isinstance(err, TypeError) else "it is not a PEM private key"
        return f"{name} does not parse as a private key ({reason}): use the .pem file GitHub generated for the App"
    except Exception as err:  # cryptography's unsupported-algorithm errors
        return f"{name} does not parse as a private key ({type(err).__name__})"
    if not isinstance(key, rsa.RSAPrivateKey):
        return f"{name} is not an RSA key: GitHub Apps sign their tokens with RS256"
    return None


def startup_problems(  # noqa: C901 (one branch per misconfiguration it names)
    environ: Mapping[str, str], role: Literal["serve", "worker"]
) -> tuple[Settings | None, list[str]]:
    """The settings `role` runs with, and everything wrong with them (empty: it can start).

    `serve` needs WEBHOOK_SECRET and credentials; `worker` needs the credentials. Credentials are
    GITHUB_TOKEN, or an App ID with a private key, inline or as a path to a file that exists and
    parses as one.
    """
    env = {k.upper(): v for k, v in environ.items()}
    problems: list[str] = []
    for alias, name in PROBOT_ALIASES.items():
        a, b = env.get(alias), env.get(name)
        if a is None or b is None:
            continue
        same = (normalize_private_key(a) == normalize_private_key(b)) if name == "GITHUB_PRIVATE_KEY" else \
            a.strip() == b.strip()
        if not same:
            shown = "" if name == "GITHUB_PRIVATE_KEY" else f" ({alias}={a!r}, {name}={b!r})"
            problems.append(f"{alias} and {name} are two spellings of one setting and disagree{shown}: set one")
    values: dict[str, str] = {}
    names: dict[str, str] = {}  # field → the variable it was read from (ours, or Probot's spelling)
    for field in Settings.model_fields:
        name = _env_name(field)
        probot = next((a for a, n in PROBOT_ALIASES.items() if n == name), None)
        if name in env:
            values[field], names[field] = env[name], name
        elif probot and probot in env:
            values[field], names[field] = env[probot], probot
    given = {f: v for f, v in values.items() if v.strip()}  # an empty variable is an unset one
    if "github_private_key" in given and "github_private_key_path" in given:
        problems.append("GITHUB_PRIVATE_KEY and GITHUB_PRIVATE_KEY_PATH are both set: give the key one way")
    try:
        fields: dict[str, Any] = {f: v for f, v in given.items()}
        settings = _FromMapping(**fields)
    except ValidationError as err:
        settings = None
        problems += [p for p in _validation_problems(err, given, names) if "needs GITHUB_PRIVATE_KEY" not in p]
    if role == "serve" and not given.get("webhook_secret"):
        problems.append("WEBHOOK_SECRET is not set: the App's webhook secret (its settings page, or what "
                        "`recipe-review register` wrote); without it every delivery would be refused")
    app_id, key, key_path = (given.get(f) for f in ("github_app_id", "github_private_key", "github_private_key_path"))
    if app_id is None and not given.get("github_token"):
        if key or key_path:
            problems.append("GITHUB_APP_ID is not set, but a private key is: set the App's ID too")
        else:
            problems.append("no GitHub credentials: set GITHUB_APP_ID with GITHUB_PRIVATE_KEY or "
                            "GITHUB_PRIVATE_KEY_PATH (the App), or GITHUB_TOKEN")
    elif app_id is not None and not (key or key_path):
        problems.append(
            "GITHUB_APP_ID is set without its private key: set GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH"
        )
    if key and not key_path:
        problem = _key_problem(names["github_private_key"], normalize_private_key(key))
        if problem:
            problems.append(problem)
    if key_path and not key:
        shown = f"{names['github_private_key_path']}={key_path!r}"
        path = Path(key_path).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            problems.append(f"{shown}: no such file")
        except IsADirectoryError:
            problems.append(f"{shown} is a directory, not the key file")
        except (OSError, UnicodeDecodeError) as err:
            problems.append(f"{shown} cannot be read: {getattr(err, 'strerror', None) or err}")
        else:
            problem = _key_problem(f"the file {shown}", normalize_private_key(text))
            if problem:
                problems.append(problem)
    return (settings if not problems else None), problems


def load_for(role: Literal["serve", "worker"], environ: Mapping[str, str] | None = None) -> Settings:
    """The settings `role` starts with, or ConfigurationError listing every problem."""
    settings, problems = startup_problems(os.environ if environ is None else environ, role)
    if problems:
        raise ConfigurationError(role, problems)
    assert settings is not None
    return settings
