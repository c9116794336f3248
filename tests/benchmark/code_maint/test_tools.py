"""The code-maintenance tools in MCP form and the built-in interface versions over them."""

from benchmark.code_maint import ENV_ID, CodeMaintenance, base_tools, interface_versions
from drift import ServedInterface, ToolCall

FAM = CodeMaintenance()


def test_the_base_tools_are_the_backends_and_the_edits_are_the_effectful_ones() -> None:
    tools = {t.name: t for t in base_tools().tools}
    assert set(tools) == {
        "list_files",
        "read_file",
        "search",
        "read_changelog",
        "run_tests",
        "run_command",
        "replace_in_file",
        "write_file",
    }
    assert set(FAM.effectful_tools) == {"replace_in_file", "write_file"}
    edit = tools["replace_in_file"].input_schema
    assert edit["required"] == ["path", "old", "new"]
    assert edit["properties"]["all_occurrences"]["default"] is True
    assert all(t.to_openai()["function"]["name"] == n for n, t in tools.items())


def test_every_interface_version_is_served_over_the_base() -> None:
    versions = interface_versions()
    assert set(versions) == {f"{ENV_ID}@1", f"{ENV_ID}@2-rename", f"{ENV_ID}@2-default"}
    for version in versions.values():
        served = ServedInterface(base_tools(), version)
        assert {t.name for t in served.tools.tools} == {t.name for t in base_tools().tools}


def test_the_rename_moves_the_path_field_and_maps_calls_back() -> None:
    served = ServedInterface(base_tools(), interface_versions()[f"{ENV_ID}@2-rename"])
    edit = next(t for t in served.tools.tools if t.name == "replace_in_file")
    assert "file_path" in edit.input_schema["properties"]
    assert "path" not in edit.input_schema["properties"]
    call = ToolCall(name="replace_in_file", arguments={"file_path": "a.py", "old": "x", "new": "y"})
    assert served.to_canonical(call).arguments == {"path": "a.py", "old": "x", "new": "y"}


def test_the_default_flip_says_so_and_an_omitted_flag_now_means_first_only() -> None:
    served = ServedInterface(base_tools(), interface_versions()[f"{ENV_ID}@2-default"])
    edit = next(t for t in served.tools.tools if t.name == "replace_in_file")
    prop = edit.input_schema["properties"]["all_occurrences"]
    assert prop["default"] is False and "Defaults to false" in prop["description"]
    call = ToolCall(name="replace_in_file", arguments={"path": "a.py", "old": "x", "new": "y"})
    assert served.to_canonical(call).arguments["all_occurrences"] is False
