"""The submitter's commands against a real service on loopback: `vwt submissions submit/receipt/
list --to URL` and `vwt adapt kit/import --to URL`, and what they refuse before sending."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conditions import ADAPTATION_EVENT, Cycle
from service import TOKEN_ENV, TOKEN_FILE_ENV, Accounts, own_submissions, running_server
from submissions import SUBMISSION_EVENT, reference_bundles, reference_dir, submit, write_bundle
from tests.service.test_adaptation import adaptation_cycle
from tests.submissions.conftest import open_cycle_at, spec_with
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str, token: str | None = None) -> tuple[int, str]:
    env = {"COLUMNS": "250", TOKEN_ENV: token, TOKEN_FILE_ENV: "/nonexistent/vwt-token"}
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.output


class Served:
    """A cycle served on loopback and its submitters' tokens."""

    def __init__(self, cycle: Cycle, url: str, tokens: dict[str, str]) -> None:
        self.cycle, self.url, self.tokens = cycle, url, tokens

    def submitted(self) -> int:
        return len(self.cycle.ledger.entries(SUBMISSION_EVENT))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An open cycle on loopback; alice and bob hold tokens."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("client") / "h", spec_with())
    accounts = Accounts(cycle.home)
    tokens = {name: accounts.add(name) for name in ("alice", "bob")}
    with running_server(cycle.home, access_log=io.StringIO()) as url:
        yield Served(cycle, url, tokens)


def test_submit_read_and_check_the_receipt(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    bundle = next(b for b in reference_bundles() if b.manifest.name == "typed-skill")
    packed = write_bundle(bundle, tmp_path / "typed-skill.bundle.json")
    alice = served.tokens["alice"]
    code, out = vwt("submissions", "submit", str(packed), "--to", served.url, token=alice)
    assert code == 0, out
    receipt = Path("receipts") / f"{bundle.hash}.json"
    assert json.loads(receipt.read_text())["receipt"]["bundle_hash"] == bundle.hash
    assert f"receipt written to {receipt}" in out
    assert f"OK: typed-skill@{bundle.manifest.version} (bundle {bundle.hash})" in out
    assert f"issued under the commitment {served.url} publishes" in out

    verify = ("submissions", "receipt", "--verify", str(receipt), "--to", served.url)
    code, out = vwt(*verify, token=alice)
    assert code == 0 and f"{served.url} holds this receipt for you" in out, out
    code, out = vwt(*verify)
    assert code == 0 and "not checked that the service holds it: no token" in out, out
    code, out = vwt(*verify, token=served.tokens["bob"])
    assert code == 2 and f"{served.url} holds no receipt of yours" in out, out
    assert "check that the token is the one you submitted with" in out

    code, out = vwt("submissions", "list", "--to", served.url, "--json", token=alice)
    assert code == 0, out
    assert [r["bundle_hash"] for r in json.loads(out)["submissions"]] == [bundle.hash]
    code, out = vwt("submissions", "list", "--to", served.url, token=served.tokens["bob"])
    assert code == 0 and "0 submissions of yours" in out

    # an altered receipt is caught here, before the service is asked
    data = json.loads(receipt.read_text())
    data["receipt"]["late"] = True
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data))
    code, out = vwt("submissions", "receipt", "--verify", str(altered), "--to", served.url)
    assert code == 2 and "signature does not verify" in out


def test_a_receipt_of_another_cycle_does_not_verify_against_this_service(
    served: Served, tmp_path: Path
) -> None:
    other = open_cycle_at(tmp_path / "other", spec_with(cycle="other-cycle"))
    receipt = submit(other, reference_bundles()[0])
    path = tmp_path / "r.json"
    path.write_text(receipt.model_dump_json())
    code, out = vwt("submissions", "receipt", "--verify", str(path), "--to", served.url)
    assert code == 2 and "the receipt is signed by key" in out, out


def test_what_goes_to_the_service_is_checked_first(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    before = served.submitted()
    bundle = str(reference_dir("no-artifacts"))
    alice = served.tokens["alice"]
    to = ("--to", served.url)
    for args, why in [
        (("--home", str(tmp_path), *to), "--home is for the operator's own machine"),
        (("--late", *to), "--late is for the operator's own machine"),
        (("--home", "h", "--late", *to), "--home and --late is for the operator's"),
        (("--to", "ftp://x"), "not an http(s) URL"),
    ]:
        code, out = vwt("submissions", "submit", bundle, *args, token=alice)
        assert code == 2 and why in out, out
    code, out = vwt("submissions", "submit", bundle, "--receipt", "r.json")
    assert code == 2 and "--receipt goes with --to" in out
    code, out = vwt("submissions", "submit", str(tmp_path), *to, token=alice)
    assert code == 2 and "no vwt-bundle.json" in out
    code, out = vwt("submissions", "submit", bundle, *to)
    assert code == 2 and "no token" in out and "ask the cycle's operator" in out
    code, out = vwt("submissions", "submit", bundle, *to, token="vwt_" + "x" * 43)
    assert code == 2 and "error: missing, unknown or revoked token" in out
    existing = tmp_path / "taken.json"
    existing.write_text("{}")
    code, out = vwt("submissions", "submit", bundle, *to, "--receipt", str(existing), token=alice)
    assert code == 2 and "exists; nothing was uploaded" in out
    code, out = vwt(
        "submissions", "receipt", "--verify", str(existing), "--to", served.url,
        "--commitment", str(existing),
    )  # fmt: skip
    assert code == 2
    assert served.submitted() == before and existing.read_text() == "{}"


@pytest.fixture(scope="module")
def adapting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A cycle in state adaptation on loopback: alice uploaded no-artifacts, bob typed-skill."""
    home = tmp_path_factory.mktemp("adapting") / "h"
    cycle = adaptation_cycle(home, {"no-artifacts": "alice", "typed-skill": "bob"})
    accounts = Accounts(cycle.home)
    tokens = {name: accounts.add(name) for name in ("alice", "bob")}
    with running_server(cycle.home, access_log=io.StringIO()) as url:
        yield Served(cycle, url, tokens)


def test_a_kit_downloaded_and_the_adapted_bundle_uploaded(adapting: Served, tmp_path: Path) -> None:
    cycle, alice = adapting.cycle, adapting.tokens["alice"]
    (submission,) = own_submissions(cycle, "alice")
    target = cycle.targets()[0].id
    pair = ("--to", adapting.url, "--submission", submission, "--target", target)
    code, out = vwt(
        "adapt", "kit", *pair, "--out", str(tmp_path / "theirs"), token=adapting.tokens["bob"]
    )
    assert code == 2 and "no submission" in out and not (tmp_path / "theirs").exists()
    kit = tmp_path / "kit"
    code, out = vwt("adapt", "kit", *pair, "--out", str(kit), token=alice)
    assert code == 0 and f"written to {kit}" in out, out
    assert json.loads((kit / "kit.json").read_text())["target"] == target
    code, out = vwt(
        "adapt", "import", *pair, "--from", str(kit / "bundle"), "--minutes", "4", "--json",
        token=alice,
    )  # fmt: skip
    assert code == 0, out
    outcome = json.loads(out)
    assert (outcome["target"], outcome["cost"]["human_minutes"]) == (target, 4)
    (entry,) = cycle.ledger.entries(ADAPTATION_EVENT)
    assert entry.payload["target"] == target and entry.payload["submission"] == submission
    code, out = vwt("adapt", "kit", *pair, "--out", str(tmp_path / "again"), token=alice)
    assert code == 2 and "already adapted" in out
    code, out = vwt("adapt", "kit", *pair, "--home", str(tmp_path), "--out", "x", token=alice)
    assert code == 2 and "--home is for the operator's own machine" in out


def test_the_pairs_listed_are_your_own_and_say_which_are_adapted(adapting: Served) -> None:
    cycle = adapting.cycle
    targets = sorted(t.id for t in cycle.targets())
    adapted = {(e.payload["submission"], e.payload["target"]) for e in cycle.adaptations().values()}
    seen = {}
    for name in ("alice", "bob"):
        code, out = vwt(
            "adapt", "pairs", "--to", adapting.url, "--json", token=adapting.tokens[name]
        )
        assert code == 0, out
        pairs = json.loads(out)["pairs"]
        (own,) = own_submissions(cycle, name)
        assert {p["submission"] for p in pairs} == {own}
        assert sorted(p["target"] for p in pairs) == targets
        assert {(p["submission"], p["target"]) for p in pairs if p["adapted"]} <= adapted
        seen[name] = own
    assert seen["alice"] != seen["bob"]
    code, out = vwt("adapt", "pairs", "--to", adapting.url, token=adapting.tokens["alice"])
    assert code == 0 and f"{len(targets)} pairs" in out and seen["alice"] in out


def test_pairs_are_listed_only_in_the_adaptation_phase(served: Served) -> None:
    code, out = vwt("adapt", "pairs", "--to", served.url, token=served.tokens["alice"])
    assert code == 2 and "adaptation" in out
