"""Bounded reading of operator and publish files: regular files only, a size cap, a nesting cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conditions import ConditionsError
from conditions._wire import MAX_DEPTH, check_depth, read_json


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "f.json"
    path.write_text(text)
    return path


def test_json_nested_to_the_cap_parses_and_one_more_level_is_refused(tmp_path: Path) -> None:
    assert read_json(_file(tmp_path, "[" * MAX_DEPTH + "]" * MAX_DEPTH), "reveal")
    deeper = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(ConditionsError, match=f"nests deeper than {MAX_DEPTH} levels"):
        read_json(_file(tmp_path, deeper), "reveal")


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_json_too_deep_for_the_parser_is_an_error_not_a_recursion_error(
    tmp_path: Path, opener: str
) -> None:
    text = opener * 200_000
    with pytest.raises(ConditionsError, match=r"reveal .*f.json nests deeper than 64") as err:
        read_json(_file(tmp_path, text), "reveal")
    assert err.value.hint == "pass the file exactly as it was published"


def test_nesting_is_counted_through_objects_and_arrays() -> None:
    value: object = 1
    for i in range(MAX_DEPTH):
        value = {"k": value} if i % 2 else [value]
    assert check_depth(value, "x") is value
    with pytest.raises(ConditionsError, match="x nests deeper"):
        check_depth([value], "x")


def test_files_over_the_size_cap_are_refused(tmp_path: Path) -> None:
    path = _file(tmp_path, "[" + "1," * 600 + "1]")
    assert len(read_json(path, "reveal", max_bytes=2000)) == 601
    with pytest.raises(ConditionsError, match="is larger than 1,000 bytes"):
        read_json(path, "reveal", max_bytes=1000)


@pytest.mark.parametrize(
    ("where", "problem"),
    [
        ("/dev/zero", "is not a regular file"),
        ("dir", "is a directory"),
        ("fifo", "is not a regular file"),
    ],
)
def test_non_files_are_refused_without_reading(tmp_path: Path, where: str, problem: str) -> None:
    path = Path(where) if where.startswith("/") else tmp_path / where
    if where == "dir":
        path.mkdir()
    elif where == "fifo":
        os.mkfifo(path)
    with pytest.raises(ConditionsError, match=f"commitment {path} {problem}") as err:
        read_json(path, "commitment")
    assert err.value.hint == "pass the commitment file itself"
