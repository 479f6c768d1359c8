"""Hypothesis profiles (CONTRIBUTING.md, "Tests"): ``ci``, derandomized, so that a CI run
cannot fail by chance and any failure reproduces; ``thorough``, twenty times every test's
examples, for the random search run apart from CI; and the default, random, at each test's
own count.
``CI`` set in the environment selects ``ci`` unless ``--hypothesis-profile`` names another.
Without onnxruntime, a test that fails for want of it skips naming its extra."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

#: the count a test's own ``examples(n)`` is scaled against (hypothesis's default)
BASE = 100

#: No test reads a model another test or an earlier run kept on disk (targets/stored.py): a
#: test double that makes one mistake in an export must see its export made; the tests of
#: the cache itself turn it on in a folder of their own.
os.environ["WAIEXPORT_MODEL_CACHE"] = "off"

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile(
    "thorough", deadline=None, max_examples=20 * BASE, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(
    "ci" if os.environ.get("CI", "").lower() not in ("", "0", "false") else "default"
)


def _onnxruntime_absent() -> bool:
    from importlib.util import find_spec

    return find_spec("onnxruntime") is None


_NO_ORT = _onnxruntime_absent()


def _for_want_of_onnxruntime(error: BaseException) -> bool:
    """Whether ``error`` is onnxruntime's absence (its import, or an engine or format that
    says it is not installed), through any chain of causes."""
    from waiexport.targets.errors import EngineUnavailable

    while error is not None:
        if isinstance(error, ModuleNotFoundError) and error.name == "onnxruntime":
            return True
        if isinstance(error, EngineUnavailable) and "onnxruntime" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Without onnxruntime (the ``ort`` extra), a test that fails for want of it skips,
    naming the extra, as the other optional tools' tests do; with it, nothing changes."""
    outcome = yield
    report = outcome.get_result()
    if (
        _NO_ORT
        and call.excinfo is not None
        and report.failed
        and _for_want_of_onnxruntime(call.excinfo.value)
    ):
        report.outcome = "skipped"
        report.longrepr = (
            str(item.path),
            item.location[1] or 0,
            "Skipped: needs onnxruntime: pip install 'waiexport[ort]'",
        )


def pytest_sessionfinish(session, exitstatus):
    """IREE's runtime, where a test ran it in this process, keeps its HAL driver cached in
    C++ to the process's end, and nanobind then reports that cache as about 260 lines of
    "leaked" instances, types and functions after the summary, pushing a failure out of the
    log's tail. The report is of IREE's own cache, not of anything a test holds: it is
    turned off here (the commands run IREE in a worker, whose end prints nothing)."""
    import sys

    binding = sys.modules.get("iree.runtime._binding")
    if binding is not None and hasattr(binding, "disable_leak_checker"):
        binding.disable_leak_checker()


@pytest.fixture(scope="session")
def example_plugin(tmp_path_factory):
    """The repository's plug-in example, installed (into a folder of its own) as a user
    would install it."""
    where = tmp_path_factory.mktemp("plugin")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(where),
            str(Path(__file__).parents[1] / "examples" / "plugin"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return where
