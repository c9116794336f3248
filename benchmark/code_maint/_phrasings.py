"""How each kind of code-maintenance task is asked: two phrasings per kind, each opening with
the ticket number (``number``: unique per split and index).

Slots per kind: ``old`` (the library function as 1.4 named it), ``package``, ``test`` (a
failing test's name), ``api`` (the function whose behaviour changed), ``path`` (the file to
change) and ``key`` (a settings key 2.0 renamed).
"""

from __future__ import annotations

PHRASINGS: dict[str, tuple[str, ...]] = {
    "rename_call": (
        "MAINT-{number}: after the upgrade to acmelib 2.0 (pinned in requirements.txt) the "
        "tests fail with AttributeError: module 'acmelib' has no attribute '{old}'. Update the "
        "call sites in the {package} package to the 2.0 API; acmelib's changelog says what "
        "changed. Do not change the tests.",
        "MAINT-{number}: acmelib 2.0 no longer has `{old}()` under that name (see its "
        "changelog). Fix every call site in the {package} package so that the test suite "
        "passes again with acmelib 2.0.",
    ),
    "unit_call": (
        "MAINT-{number}: since the upgrade to acmelib 2.0, `{old}()` returns its result in "
        "another unit (see the library's changelog), and the {package} package still expects "
        "the old one: its tests fail. Make the call sites use the function that keeps the old "
        "unit.",
        "MAINT-{number}: tests of the {package} package fail after the acmelib 2.0 upgrade: "
        "values computed with `{old}()` are off by a factor of 1000. Update the call sites as "
        "acmelib's changelog says; do not change the tests.",
    ),
    "test_repair": (
        "MAINT-{number}: since the upgrade to acmelib 2.0 the test `{test}` fails: acmelib "
        "changed what `{api}()` does, as its changelog documents, and the {package} code is "
        "right. Update the test's expected value to the new behaviour; do not skip or weaken "
        "the test.",
        "MAINT-{number}: `{test}` fails after the acmelib 2.0 upgrade because of a documented "
        "behaviour change in `{api}()`. Repair the test's expectation (keep the assertion) so "
        "the suite passes; the {package} code stays as it is.",
    ),
    "config_migrate": (
        "MAINT-{number}: acmelib 2.0 rejects the {package} settings: KeyError: settings key "
        "'{key}' was renamed in acmelib 2.0. Migrate {path} to the 2.0 key names (acmelib's "
        "changelog lists them), keeping the values.",
        "MAINT-{number}: migrate the [acmelib] section of {path} from acmelib 1.4 to 2.0: the "
        "`{key}` key has a new name in 2.0 (see the library's changelog). Keep its value; the "
        "{package} tests must pass.",
    ),
}

SECOND_PHRASINGS: dict[str, tuple[str, ...]] = {
    "rename_call": (
        "MAINT-{number}: {package} breaks on acmelib 2.0 because `{old}` isn't there anymore "
        "(it was renamed, see the changelog). Update every call in {package} to the new name; "
        "leave the tests as they are.",
        "MAINT-{number}: AttributeError on `acmelib.{old}` after bumping acmelib to 2.0. Rename "
        "the calls throughout the {package} package to whatever 2.0 calls it now.",
    ),
    "unit_call": (
        "MAINT-{number}: with acmelib 2.0, `{old}()` gives its result in a different unit, so "
        "the numbers in {package} come out wrong. Switch the call sites to the 2.0 function that "
        "still returns the old unit (the changelog names it).",
        "MAINT-{number}: since acmelib 2.0 the values {package} gets from `{old}()` are off by "
        "1000x. At every call site use the function the changelog recommends for the old unit; "
        "don't touch the tests.",
    ),
    "test_repair": (
        "MAINT-{number}: `{test}` started failing with acmelib 2.0 because `{api}()` behaves "
        "differently now (documented in the changelog). The {package} code is fine: update the "
        "expected value in the test and keep the assertion.",
        "MAINT-{number}: acmelib 2.0 changed the behaviour of `{api}()` and `{test}` now fails. "
        "Fix the test's expectation to match the new behaviour; don't skip it and don't change "
        "{package}.",
    ),
    "config_migrate": (
        "MAINT-{number}: acmelib 2.0 no longer accepts the '{key}' setting in {path}; it has a "
        "new name (see the changelog). Rename the key in {path} and keep its value.",
        "MAINT-{number}: {package} won't start on acmelib 2.0: the '{key}' key in {path} was "
        "renamed. Update {path} to the new key name, same value.",
    ),
}
"""A second set of phrasings, written independently of the generator's (which never uses
them): the sim's tests generate tasks with it to check that sim models read requests by what
they say, not by the generator's wording (docs/sim.md)."""
