"""The two library versions in the image tree: what the generator believes changed is what
the library does and what its changelog says."""

import re
from pathlib import Path

from benchmark.code_maint import _library as lib


def _changelog(version: str) -> str:
    return (lib.version_dir(version) / "CHANGELOG.md").read_text()


def test_renamed_functions_exist_only_under_their_new_name_in_2_0() -> None:
    old, new = lib.load(lib.OLD_VERSION), lib.load(lib.NEW_VERSION)
    for before, after in lib.RENAMED.items():
        assert hasattr(old, before) and not hasattr(old, after)
        assert hasattr(new, after) and not hasattr(new, before)
        assert f"`{before}()` is renamed `{after}()`" in _changelog(lib.NEW_VERSION)


def test_unit_changes_keep_the_old_unit_under_the_new_name() -> None:
    old, new = lib.load(lib.OLD_VERSION), lib.load(lib.NEW_VERSION)
    args = {"elapsed": (1.0, 1.5), "parcel_weight": ([300, 200],), "distance": ((0, 0), (300, 400))}
    for name, keeper in lib.UNIT_CHANGED.items():
        before = getattr(old, name)(*args[name])
        assert getattr(new, keeper)(*args[name]) == before
        assert getattr(new, name)(*args[name]) * 1000 == before
        assert re.search(rf"`{keeper}\(\)` returns \w+ as before", _changelog(lib.NEW_VERSION))


def test_behaviour_changes_are_documented_and_real() -> None:
    old, new = lib.load(lib.OLD_VERSION), lib.load(lib.NEW_VERSION)
    assert old.title("war and peace") == "War And Peace"
    assert new.title("war and peace") == "War and Peace"
    assert old.truncate("abcdef", 4) == "abcd" and new.truncate("abcdef", 4) == "abc~"
    for name in lib.BEHAVIOUR_CHANGED:
        assert f"`{name}()`" in _changelog(lib.NEW_VERSION).split("Behaviour changes")[1]


def test_renamed_settings_keys_are_refused_by_2_0_and_documented(tmp_path: Path) -> None:
    for before, after in lib.SETTINGS_RENAMED.items():
        ini = tmp_path / f"{before}.ini"
        ini.write_text(f"[acmelib]\nname = x\n{before} = 1\n")
        assert lib.load(lib.OLD_VERSION).load_settings(str(ini))[before] == "1"
        try:
            lib.load(lib.NEW_VERSION).load_settings(str(ini))
        except KeyError as e:
            assert after in str(e)
        else:
            raise AssertionError(f"2.0 accepted the old key {before!r}")
        assert f"settings key `{before}` is renamed `{after}`" in _changelog(lib.NEW_VERSION)
