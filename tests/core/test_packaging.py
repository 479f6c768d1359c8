"""pyproject's package list names every product folder, so an install carries each room; the
suite collects on an install without the extras."""

import tomllib

from _helpers import FOLDERS, ROOT


def test_every_product_folder_is_a_listed_package():
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = set()
    for package, folder in FOLDERS.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            name = ".".join([package, *parts])
            if package == "waiexport" and parts and f"waiexport.{parts[0]}" in FOLDERS:
                continue
            found.add(name)
    assert found == listed


#: The modules the optional extras install (``pyproject.toml``), as code imports them.
OPTIONAL = {
    "onnxruntime",
    "tosa_serializer",
    "tosa_reference_model",
    "iree",
    "ethosu",
    "openvino",
    "tract",
    "tvm",
    "nbclient",
    "nbformat",
    "ipykernel",
    "matplotlib",
    "onnxruntime_qnn",
    "tflite_micro",
    "ai_edge_litert",
}


def test_a_test_module_imports_no_optional_module_at_its_top():
    """A test module that imported an extra's module at its top failed to collect on a base
    install, which ends the whole run: such a module is imported by ``needs``, which skips
    the module by name where it is absent."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} {n}"
                for n in names
                if n.split(".")[0] in OPTIONAL
            ]
    assert not found, found


def test_the_license_is_apache_2_0_in_pyproject_and_in_its_file():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in text
