"""No module names a layer above its own by a dotted string, which the import contracts cannot see
(docs/architecture.md#configuration): the configuration, at the top, wires the layers by importing them.

The layers are those of the import contract in pyproject.toml; each package's string constants are read from its
source (the AST), so a name in a comment or a docstring's prose is not counted, but `"workers.dispatch"`,
`include("replays.urls")` or `"config.settings"` are.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS: list[str] = next(contract["layers"] for contract in tomllib.loads((ROOT / "pyproject.toml").read_text())
                         ["tool"]["importlinter"]["contracts"] if contract["type"] == "layers")
# Still to move: the API's routes include the replays app's (tournaments/api/ is another change's to edit).
KNOWN = {("tournaments/api/urls.py", "replays.api.urls")}


def names_of(package: str, upper: list[str], root: Path = ROOT) -> set[tuple[str, str]]:
    found = set()
    for path in (root / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if any(node.value.startswith((f"{name}.", f"{name}:")) for name in upper):
                    found.add((str(path.relative_to(root)), node.value))
    return found


def test_the_layers_are_the_contracts() -> None:
    assert LAYERS[0] == "config" and LAYERS[-1] == "engine"


def test_no_module_names_an_upper_layer_by_a_string() -> None:
    found = set().union(*(names_of(package, LAYERS[:index]) for index, package in enumerate(LAYERS)))
    assert found - KNOWN == set()


def test_the_scan_finds_such_a_name(tmp_path: Path) -> None:
    (tmp_path / "tournaments").mkdir()
    (tmp_path / "tournaments" / "wiring.py").write_text('"""workers.dispatch"""\nRUNNER = "workers.dispatch"\n')
    assert names_of("tournaments", ["workers"], tmp_path) == {("tournaments/wiring.py", "workers.dispatch")}
