"""The Flet app: state objects (no UI) and thin screens over them.

State objects, each tested without a browser:

* :class:`~chickenfoot.app.setup.MatchSetup` - the new-match form (seating, preset, options).
* :func:`~chickenfoot.app.brief.round_brief` / :func:`~chickenfoot.app.brief.rules_sections`.
* :class:`~chickenfoot.app.round_entry.RoundEntry` - the hands of one round being entered.
* :class:`~chickenfoot.app.photo_review.PhotoReview` - a photo's reading under correction.
* :class:`~chickenfoot.app.dispute.DisputeBuilder` - the table described for a disputed play
  (built tap by tap, loaded from a layout file or read from a photo of the table).
* :class:`~chickenfoot.app.match_session.MatchSession` - the match in progress.
* :class:`~chickenfoot.app.settings.Settings` - theme, text size, default rules.
* :class:`~chickenfoot.app.session.Session` - one device's session: its drafts, the screen
  shown and its typed state (:mod:`chickenfoot.app.screens`), what another device's change
  means for it.

The screens (:mod:`chickenfoot.app.shell`, :mod:`chickenfoot.app.router`,
:mod:`chickenfoot.app.views`) import Flet; importing this package does not, so the CLI and the
state objects stay light.
"""

from .brief import RoundBrief, round_brief, rules_sections
from .dispute import DisputeBuilder, DisputeError
from .photo_review import PhotoReview, Preview, ReviewError, from_reading
from .round_entry import EntryError, HandEntry, Mode, RoundEntry
from .settings import Settings, SettingsError, SettingsStore
from .setup import MatchSetup, SetupError

__all__ = [
    "DisputeBuilder",
    "DisputeError",
    "EntryError",
    "HandEntry",
    "MatchSetup",
    "Mode",
    "PhotoReview",
    "Preview",
    "ReviewError",
    "RoundBrief",
    "RoundEntry",
    "Settings",
    "SettingsError",
    "SettingsStore",
    "SetupError",
    "from_reading",
    "round_brief",
    "rules_sections",
]
