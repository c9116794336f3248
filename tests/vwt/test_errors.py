"""Bad input anywhere on the command line is one `error:` line and one `hint:` line, exit 2.

Each case here used to end in a traceback: deep JSON/YAML, NUL bytes and over-long paths, a
directory or a device as key path, model strings without a known provider, an unknown sim
model and a missing provider credential; a full disk is one line too.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from submissions import reference_dir
from vwt._common import user_errors
from vwt.cli import app

runner = CliRunner()
SUBMISSION = str(reference_dir("typed-skill"))
LONG = "x" * 300  # one component over NAME_MAX (255)


def vwt(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "250", **(env or {})})


def assert_one_line_error(result: Result, *expected: str) -> str:
    """Exit 2, stderr is exactly an `error:` and a `hint:` line, no traceback; the error line."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 2, lines
    error, hint = lines
    assert error.startswith("error: ") and hint.startswith("hint: ") and len(hint) > 7
    for text in expected:
        assert text in error, (text, error)
    return error


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nests deeper than 64 levels"),
        ("deep.yaml", "a: " + "[" * 100_000, "nesting deeper than 64 levels"),
        ("deep-block.yaml", "".join("  " * i + "a:\n" for i in range(200)), "deeper than 64"),
        ("alias.yaml", "a: &a [1]\nb: [*a, *a]\n", "aliases (*name) are not allowed"),
    ],
)
def test_deep_or_aliased_specs(tmp_path: Path, name: str, text: str, message: str) -> None:
    spec = tmp_path / name
    spec.write_text(text)
    for args in (
        ["cycle", "init", "--home", str(tmp_path / "h")],
        ["run", "dev", "--home", str(tmp_path / "dev"), "--submission", SUBMISSION],
    ):
        assert_one_line_error(vwt(*args, "--spec", str(spec)), f"cycle spec {spec}", message)
    assert not (tmp_path / "h").exists() and not (tmp_path / "dev").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["cycle", "init", "--home", "h\0ome"],
        ["cycle", "status", "--home", "h\0ome"],
        ["cycle", "init", "--home", "h", "--spec", "spec\0.yaml"],
        ["cycle", "init", "--home", "h", "--key", "k\0.pem"],
        ["run", "dev", "--home", "d", "--submission", "bundle\0"],
    ],
    ids=["init-home", "status-home", "spec", "key", "submission"],
)
def test_nul_bytes_in_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(vwt(*args), "NUL byte")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["cycle", "init", "--home", LONG],
        ["cycle", "status", "--home", LONG],
        ["cycle", "init", "--home", "h", "--spec", LONG + ".yaml"],
        ["cycle", "init", "--home", "h", "--key", LONG],
        ["run", "dev", "--home", "d", "--submission", LONG],
        ["run", "dev", "--home", LONG, "--submission", SUBMISSION],
    ],
    ids=["init-home", "status-home", "spec", "key", "submission", "dev-home"],
)
def test_over_long_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    error = assert_one_line_error(vwt(*args))
    assert "too long" in error, error
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("directory", "is a directory"),
        ("/dev/zero", "/dev/zero is not a regular file"),
        ("/dev/null", "/dev/null is not a regular file"),
    ],
)
def test_non_files_as_key_paths(tmp_path: Path, key: str, message: str) -> None:
    if key == "directory":
        key = str(tmp_path / "keys")
        Path(key).mkdir()
    result = vwt("cycle", "init", "--home", str(tmp_path / "h"), "--key", key)
    assert_one_line_error(result, message)
    assert not (tmp_path / "h").exists()


@pytest.mark.parametrize(
    ("model", "message", "hint"),
    [
        ("acme-2", "model 'acme-2' has no provider prefix", "sim/acme-2"),
        ("acme/acme-2", "unknown provider 'acme'", "openai/gpt-4o-mini"),
        ("sim/acme-9", "unknown sim model 'sim/acme-9'", "acme-1, acme-2, acme-3"),
        ("openai/gpt-4o-mini", "needs the credential OPENAI_API_KEY", "export OPENAI_API_KEY="),
    ],
)
def test_bad_models_are_refused_before_anything_runs(
    tmp_path: Path, model: str, message: str, hint: str
) -> None:
    result = vwt(
        "run",
        "dev",
        "--home",
        str(tmp_path / "dev"),
        "--submission",
        SUBMISSION,
        "--model",
        model,
        env={"OPENAI_API_KEY": None},
    )
    assert_one_line_error(result, message)
    assert hint in result.stderr.splitlines()[1]
    assert result.stdout.strip() == ""  # no trials, no litellm banner
    assert not list((tmp_path / "dev").glob("*.sqlite"))


def test_a_spec_naming_a_bad_model_is_refused_at_init(tmp_path: Path) -> None:
    spec = (Path(__file__).parents[2] / "benchmark" / "default_cycle.yaml").read_text()
    spec = spec.replace(
        '- {model: sim/orbit-2, version: "2", provider: orbit}',
        '- {model: sim/orbit-2, version: "2", provider: orbit}\n'
        '    - {model: orbit-9, version: "9", provider: orbit}',
    )
    assert "orbit-9" in spec
    (tmp_path / "spec.yaml").write_text(spec)
    result = vwt(
        "cycle", "init", "--home", str(tmp_path / "h"), "--spec", str(tmp_path / "spec.yaml")
    )
    assert_one_line_error(result, "model 'orbit-9' has no provider prefix")
    assert not (tmp_path / "h").exists()


def _command(fail: BaseException) -> typer.Typer:
    cli = typer.Typer()

    @cli.command()
    @user_errors
    def go() -> None:
        """Raise ``fail``."""
        raise fail

    return cli


def _real_enospc() -> OSError:
    try:
        with open("/dev/full", "w") as f:
            f.write("x")
    except OSError as e:
        return e
    raise AssertionError("writing to /dev/full succeeded")


def test_a_full_disk_is_one_line() -> None:
    error = _real_enospc()
    assert error.errno == errno.ENOSPC
    result = runner.invoke(_command(error), [])
    assert_one_line_error(result, "no space left on the device")
    assert "free some disk space" in result.stderr


def test_sqlite_full_disk_is_one_line() -> None:
    import sqlite3

    result = runner.invoke(_command(sqlite3.OperationalError("database or disk is full")), [])
    assert_one_line_error(result, "no space left on the device")


@pytest.mark.parametrize(
    "fail",
    [
        ValueError("some other value error"),
        OSError(errno.EIO, "Input/output error"),
        KeyError("x"),
    ],
    ids=["value-error", "eio", "key-error"],
)
def test_programming_errors_are_not_swallowed(fail: BaseException) -> None:
    result = runner.invoke(_command(fail), [])
    assert result.exit_code == 1 and result.exception is fail


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "not valid JSON (nested too deeply)"),
        (
            '[{"name": "a", "inputSchema": '
            + '{"type": "object", "properties": {"a": ' * 200
            + "{}"
            + "}}" * 200
            + "}]",
            "nests deeper than 64 levels",
        ),
        (None, "cannot read (not a regular file)"),
    ],
    ids=["parser-deep", "schema-deep", "dev-zero"],
)
def test_deep_or_endless_tool_lists(tmp_path: Path, content: str | None, message: str) -> None:
    path = Path("/dev/zero")
    if content is not None:
        path = tmp_path / "tools.json"
        path.write_text(content)
    assert_one_line_error(vwt("drift", "diff", str(path), str(path)), f"{path}: {message}")


def test_the_root_group_catches_what_a_command_left_unhandled() -> None:
    from conditions import ConditionsError
    from vwt.cli import _Vwt

    cli = typer.Typer(cls=_Vwt)

    @cli.command()
    def bare() -> None:
        """Raise a user error without `user_errors`."""
        raise ConditionsError("no such cycle", "pass --home")

    @cli.command()
    def other() -> None:
        """A second command, so that `bare` is a sub-command of the root group."""

    assert_one_line_error(runner.invoke(cli, ["bare"]), "error: no such cycle")
