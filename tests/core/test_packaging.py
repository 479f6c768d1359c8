"""pyproject's package list names every product folder, so an install carries each room."""

import tomllib

from _helpers import FOLDERS, ROOT


def test_every_product_folder_is_a_listed_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = set()
    for package, folder in FOLDERS.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            name = ".".join([package, *parts])
            if package == "waiexport" and parts and f"waiexport.{parts[0]}" in FOLDERS:
                continue
            found.add(name)
    assert found == listed
