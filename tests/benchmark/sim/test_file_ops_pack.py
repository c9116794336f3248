"""The file_ops family's sim pack (YAML) read by the sim engine: artifacts about the file
chores move a sim model's moves by what they say, not by their wording; how a search pattern
matches is read from the served release's description. Engine only: no server runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark import load_family_folder, use_family_folders
from benchmark._seeds import request_seed
from benchmark.sim import next_move, sim_model

EXAMPLE = Path(__file__).resolve().parents[3] / "benchmark" / "families" / "file_ops"
SEEDS = [request_seed(trial, "arm") for trial in range(300)]
"""300 trials' request seeds (their shared parts differ: independent draws)."""
SYSTEM = "You are an operations agent. Use the tools. When you are done, reply with a summary."


@pytest.fixture(scope="module")
def tools() -> Callable[[str], list[dict[str, Any]]]:
    fam = load_family_folder(EXAMPLE)
    use_family_folders([EXAMPLE])  # the sim finds the pack among the families in play
    versions = fam.interface_versions()

    def served(version: str) -> list[dict[str, Any]]:
        return [t.to_openai() for t in fam.base_tools_for(versions[version]).tools]

    return served


def _recipe(text: str) -> str:
    return f'{SYSTEM}\n\n<recipe name="files">\n{text}\n</recipe>'


def _first_moves(
    request: str, system: str, tools: list[dict[str, Any]], model: str = "acme-2"
) -> list[Any]:
    spec = sim_model(model)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": request}]
    return [next_move(spec, seed, messages, tools) for seed in SEEDS]


ARCHIVE = "Archive drafts/q3-report.md: move it to archive/2024/q3-report.md."
MKDIR = (
    "File chores\n\n1. Before moving a file into a folder, create the folder with "
    "create_directory.\n2. Then move the file with move_file."
)
MKDIR_REWORDED = (
    "File chores\n\n1. Make the destination folder first (create_directory), and only then "
    "call move_file: a move into a folder that is not there yet fails."
)
NO_MKDIR = (
    "File chores\n\n1. Never create a folder with create_directory: IT manages the folders.\n"
    "2. Move the file with move_file."
)


def _share(moves: list[Any], tool: str) -> float:
    return sum(m.tool == tool for m in moves) / len(moves)


def test_a_playbook_that_says_create_the_folder_first_is_followed_by_what_it_says(
    tools: Callable[[str], list[dict[str, Any]]],
) -> None:
    served = tools("files@2025.7.1")
    unaided = _share(_first_moves(ARCHIVE, SYSTEM, served), "create_directory")
    told = _share(_first_moves(ARCHIVE, _recipe(MKDIR), served), "create_directory")
    reworded = _share(_first_moves(ARCHIVE, _recipe(MKDIR_REWORDED), served), "create_directory")
    forbidden = _share(_first_moves(ARCHIVE, _recipe(NO_MKDIR), served), "create_directory")
    # acme-2 knows the procedure unaided about half the time (know_procedure 0.45)
    assert 0.25 < unaided < 0.7
    assert told > unaided + 0.25 and reworded > unaided + 0.25
    assert abs(told - reworded) < 0.1  # the same meaning in other words
    # the opposite meaning: only models that do not follow the playbook (acme-2 follows
    # numbered lines 0.95 of the time) and know the procedure still create the folder
    assert forbidden < 0.05 and forbidden < unaided - 0.25


FIND = (
    "Somewhere in inbox/ there is a file whose name mentions 'northwind'. Find it and move it "
    "to invoices/northwind-2025-03.txt."
)
GLOB = (
    "Filing playbook\n\n1. Find the file with search_files: its pattern is a glob-style pattern "
    "(**/*NAME*).\n2. Then move it with move_file."
)
PARTIAL = (
    "Filing playbook\n\n1. Find the file with search_files: its pattern matches part of a file "
    "name.\n2. Then move it with move_file."
)


def _globs(moves: list[Any]) -> float:
    searches = [m for m in moves if m.tool == "search_files"]
    assert len(searches) > len(moves) / 2
    return sum(str(m.arguments.get("pattern", "")).startswith("**/*") for m in searches) / len(
        searches
    )


def test_how_a_search_pattern_matches_is_read_from_the_served_release(
    tools: Callable[[str], list[dict[str, Any]]],
) -> None:
    old = _globs(_first_moves(FIND, SYSTEM, tools("files@2025.7.1")))
    new = _globs(_first_moves(FIND, SYSTEM, tools("files@2026.8.31")))
    assert old == 0  # 2025.7.1: "matches partial names"
    assert new > 0.3  # 2026.8.31: "glob-style patterns", read by models that read descriptions


def test_a_playbook_stating_the_pattern_syntax_moves_the_pattern_both_ways(
    tools: Callable[[str], list[dict[str, Any]]],
) -> None:
    old, new = tools("files@2025.7.1"), tools("files@2026.8.31")
    # on the old release a glob playbook makes models send globs (which match nothing there)
    assert _globs(_first_moves(FIND, _recipe(GLOB), old)) > 0.5
    # on the new one a partial-name playbook makes fewer models send globs than unaided
    unaided = _globs(_first_moves(FIND, SYSTEM, new))
    assert _globs(_first_moves(FIND, _recipe(PARTIAL), new)) < unaided - 0.2
