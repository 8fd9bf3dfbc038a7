"""App settings (theme, text size, default rules), kept in a small JSON file beside the match DB.

Written to a temporary file and ``os.replace``d, so a crash mid-save leaves the old file; a
damaged file is set aside (``.damaged``) and defaults are used, so the app always starts.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from chickenfoot.rules import DEFAULT_PRESET, PRESETS, get_rules, jsontext
from chickenfoot.rules.errors import ChickenFootError, InputError

THEMES = ("system", "light", "dark")
#: Text scale used when "large text" is on; chosen so a 360 px phone still fits a tile row.
LARGE_TEXT_SCALE = 1.3


class SettingsError(InputError):
    """A settings value that cannot be used."""


@dataclass(frozen=True, slots=True)
class Settings:
    theme: str = "system"
    large_text: bool = False
    default_preset: str = DEFAULT_PRESET
    default_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.theme not in THEMES:
            raise SettingsError(f"theme must be one of {', '.join(THEMES)}, not {self.theme!r}")
        if self.default_preset not in PRESETS:
            raise SettingsError(f"unknown rules preset {self.default_preset!r}")
        try:
            get_rules(self.default_preset, self.default_options)
        except ChickenFootError as exc:
            raise SettingsError(f"default rules: {exc}") from None

    @property
    def text_scale(self) -> float:
        return LARGE_TEXT_SCALE if self.large_text else 1.0

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        if not isinstance(data, dict):
            raise SettingsError("settings must be a JSON object")
        known = {k: data[k] for k in ("theme", "large_text", "default_preset", "default_options") if k in data}
        if "large_text" in known and not isinstance(known["large_text"], bool):
            raise SettingsError("large_text must be true or false")
        if "default_options" in known and not isinstance(known["default_options"], dict):
            raise SettingsError("default_options must be an object")
        return cls(**known)


class SettingsStore:
    """Loads and saves :class:`Settings` at ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        #: Why the stored file could not be used, if it could not (shown once in the app).
        self.problem: str | None = None

    def load(self) -> Settings:
        if not self.path.exists():
            return Settings()
        try:
            return Settings.from_dict(jsontext.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ChickenFootError) as exc:
            self.problem = f"settings file {self.path.name} could not be read ({exc}); defaults are used"
            with contextlib.suppress(OSError):
                os.replace(self.path, self.path.with_name(self.path.name + ".damaged"))
            return Settings()

    def save(self, settings: Settings) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(settings.to_dict(), fh, indent=2, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
