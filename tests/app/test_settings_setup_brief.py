"""App state without UI: settings file, new-match form, round brief, rules page."""

from __future__ import annotations

import json

import pytest

from chickenfoot.app.brief import round_brief, rules_sections
from chickenfoot.app.settings import Settings, SettingsError, SettingsStore
from chickenfoot.app.setup import MatchSetup, SetupError
from chickenfoot.rules import OPTIONS, PRESETS, get_rules


def test_settings_round_trip_through_a_real_file(tmp_path):
    store = SettingsStore(tmp_path / "settings.json")
    assert store.load() == Settings()
    s = Settings(theme="dark", large_text=True, default_preset="pagat", default_options={"zero_zero": 25})
    store.save(s)
    assert SettingsStore(tmp_path / "settings.json").load() == s
    assert s.text_scale > 1.0 and Settings().text_scale == 1.0
    assert not list(tmp_path.glob(".settings-*"))  # no temp file left behind


def test_damaged_settings_file_gives_defaults_and_is_kept_aside(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark", "large_te')
    store = SettingsStore(path)
    assert store.load() == Settings()
    assert store.problem and "could not be read" in store.problem
    assert (tmp_path / "settings.json.damaged").read_text().startswith('{"theme"')


@pytest.mark.parametrize("bad", [{"theme": "pink"}, {"default_preset": "nope"},
                                 {"default_options": {"zero_zero": 7}}, {"large_text": "yes"}])
def test_bad_settings_values_are_refused(bad):
    with pytest.raises(SettingsError):
        Settings.from_dict(bad)


def test_setup_players_add_rename_reorder_and_validate():
    s = MatchSetup()
    assert s.problems() and not s.ready
    for name in ("Ann", "  Bob  ", "Cy"):
        s.add_player(name)
    assert s.players == ["Ann", "Bob", "Cy"]
    with pytest.raises(SetupError, match="already"):
        s.add_player("ann")
    with pytest.raises(SetupError):
        s.add_player("   ")
    s.rename_player(1, "Bea")
    s.move_player(2, -1)
    assert s.players == ["Ann", "Cy", "Bea"]
    s.move_player(0, -1)  # already first: nothing happens
    assert s.players[0] == "Ann"
    s.remove_player(1)
    assert s.players == ["Ann", "Bea"] and s.ready


def test_setup_summary_and_options_come_from_the_ruleset():
    s = MatchSetup(players=["A", "B", "C", "D"])
    r = get_rules()
    assert any(f"{r.deal_size(4)} tiles each" in line for line in s.summary())
    assert any("10 rounds from 9-9 down to 0-0" in line for line in s.summary())
    views = {v.key: v for v in s.option_views()}
    assert views["zero_zero"].help == OPTIONS["zero_zero"].help
    assert views["zero_zero"].choices == ("50", "25", "0")
    s.set_option("zero-zero", "25")
    assert s.rules.zero_zero == 25 and {v.key: v for v in s.option_views()}["zero_zero"].changed
    s.set_option("zero_zero", 50)  # back to the preset's value: no longer an override
    assert s.options == {}
    with pytest.raises(SetupError):
        s.set_option("spokes", "5")


def test_setup_player_count_limits_follow_the_preset():
    s = MatchSetup(preset="chickie-sixes", players=["A", "B", "C"])
    assert s.problems() == ["Chickie Sixes is for at most 2 players"]
    s.remove_player(2)
    assert s.ready
    s.set_preset("gameweave")
    assert s.options == {} and s.rules.name == "gameweave"


def test_round_brief_rotating_start_and_centre_double():
    players = ["Ann", "Bob", "Cy", "Dee"]
    b = round_brief(get_rules(), players, 1)
    assert (b.number, b.of, b.double_text, b.deal, b.first_player) == (2, 10, "8-8", 11, "Bob")
    assert "centre" in b.missing_double and "6 spokes" in b.reminder and "3 toes" in b.reminder


def test_round_brief_holder_start_explains_missing_double():
    b = round_brief(get_rules("chickie-sixes"), ["Ann", "Bob"], 0)
    assert b.double_text == "6-6" and b.first_seat is None
    assert "next-highest double" in b.missing_double and "4 spokes" in b.reminder
    b2 = round_brief(get_rules("gameweave"), ["Ann", "Bob"], 0, first_seat=1)
    assert b2.first_player == "Bob" and "draw" in b2.missing_double


def test_rules_page_is_generated_from_every_preset():
    sections = rules_sections()
    assert [s.name for s in sections] == list(PRESETS)
    for s in sections:
        assert list(s.lines) == PRESETS[s.name].describe()
    assert json.dumps([s.title for s in sections])


def test_every_option_value_the_new_match_form_offers_is_in_words() -> None:
    """No "may-play", "false" or "none" on the form: each written value has its words."""
    from chickenfoot.app.setup import FORM_OPTIONS, _choices
    from chickenfoot.rules.words import option_choice

    for key in FORM_OPTIONS:
        for value in _choices(key):
            words = option_choice(key, value)
            assert words and (words != value or value.isdigit()), (key, value, words)


def test_too_few_players_is_a_step_to_take_not_a_mistake():
    from chickenfoot.app.setup import MatchSetup

    s = MatchSetup("pagat", {})
    assert s.to_do() == "Add 2 players to start: Chicken Foot (pagat-style) is for 2 to 8 players."
    assert s.mistakes() == [] and not s.ready  # nothing red before anything is typed
    s.add_player("Ann")
    assert s.to_do() is not None and s.to_do().startswith("Add 1 more player to start")
    s.add_player("Bob")
    assert s.to_do() is None and s.mistakes() == [] and s.ready
